import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { RunSummary } from "../server/runs.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const SANITIZE = { sanitizeOps: true, sanitizeResources: true } as const;

const tmp = Deno.makeTempDirSync({ prefix: "arrow-serve-test-" });
globalThis.addEventListener("unload", () => Deno.removeSync(tmp, { recursive: true }));

/** A subprocess of the CLI whose stdout can be awaited until it prints something. */
function spawnArrow(args: string[]) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-prompt", `${ROOT}src/cli/main.ts`, ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1", RUST_BACKTRACE: "0" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let stdout = "";
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stderr = new Response(child.stderr).text();
  return {
    child,
    async waitFor(re: RegExp): Promise<RegExpMatchArray> {
      for (;;) {
        const m = stdout.match(re);
        if (m) return m;
        const { done, value } = await reader.read();
        if (done) throw new Error(`arrow ${args.join(" ")} ended before printing ${re}:\n${stdout}`);
        stdout += value;
      }
    },
    async finish(): Promise<{ code: number; stdout: string; stderr: string }> {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        stdout += value;
      }
      const { code } = await child.status;
      return { code, stdout, stderr: await stderr };
    },
  };
}

/** The status code of a GET sent with the given Host header. */
async function statusOver(port: number, host: string, path: string): Promise<number> {
  using conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(
    new TextEncoder().encode(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`),
  );
  const head = new Uint8Array(64);
  const n = await conn.read(head);
  return Number(new TextDecoder().decode(head.subarray(0, n ?? 0)).match(/^HTTP\/1\.1 (\d{3})/)?.[1] ?? 0);
}

/** A runs directory holding one (empty) run, enough to see the list through the socket. */
function runsDir(): string {
  const dir = `${tmp}/runs-${crypto.randomUUID().slice(0, 8)}`;
  Deno.mkdirSync(`${dir}/20260101-000000-empty-0000`, { recursive: true });
  Deno.writeTextFileSync(`${dir}/20260101-000000-empty-0000/replay.jsonl`, "");
  return dir;
}

Deno.test({
  name: "arrow serve prints its URL once, serves the runs, and stops cleanly on Ctrl-C",
  ...SANITIZE,
  async fn() {
    const p = spawnArrow(["serve", "--port", "0", "--runs-dir", runsDir()]);
    const [, url] = await p.waitFor(/(http:\/\/127\.0\.0\.1:\d+\/)/);
    const list = await (await fetch(`${url}api/runs`)).json() as RunSummary[];
    deepEqual(list.map((r) => r.id), ["20260101-000000-empty-0000"]);
    p.child.kill("SIGINT");
    const out = await p.finish();
    equal(out.code, 0, out.stderr);
    equal(out.stdout.split("http://").length - 1, 1, "the URL is printed once");
  },
});

Deno.test({
  name: "arrow serve warns when bound beyond loopback and explains a missing runs directory",
  ...SANITIZE,
  async fn() {
    const missing = await spawnArrow(["serve", "--runs-dir", `${tmp}/nowhere`]).finish();
    equal(missing.code, 1);
    match(missing.stderr, /no runs directory/);
    const p = spawnArrow(["serve", "--port", "0", "--host", "0.0.0.0", "--runs-dir", runsDir()]);
    const [, port, token] = await p.waitFor(/http:\/\/0\.0\.0\.0:(\d+)\/\?token=([A-Za-z0-9_-]{43})\s/);
    const bare = await fetch(`http://127.0.0.1:${port}/api/runs`);
    equal(bare.status, 401, "beyond loopback, a request without the token is refused");
    await bare.body?.cancel();
    const linked = await fetch(`http://127.0.0.1:${port}/api/runs?token=${token}`);
    equal(linked.status, 200);
    await linked.body?.cancel();
    p.child.kill("SIGINT");
    const out = await p.finish();
    equal(out.code, 0);
    match(
      out.stderr,
      /warning: the dashboard listens on 0\.0\.0\.0: anyone who can reach this machine and has the link/,
    );
    equal(out.stdout.split(token!).length - 1, 1, "the token is printed once");
  },
});

Deno.test({
  name: "arrow serve refuses a port that is taken",
  ...SANITIZE,
  async fn() {
    using taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const out = await spawnArrow(["serve", "--port", String(taken.addr.port), "--runs-dir", runsDir()])
      .finish();
    equal(out.code, 1);
    match(out.stderr, /already in use/);
  },
});

Deno.test({
  name: "arrow run --serve serves the run it drives, keeps serving after the verdict, exits 0 on Ctrl-C",
  ...SANITIZE,
  async fn() {
    const dir = `${tmp}/cli-runs`;
    const p = spawnArrow([
      "run",
      "--scenario",
      "green",
      "--serve",
      "--port",
      "0",
      "--tick-ms",
      "0",
      "--runs-dir",
      dir,
    ]);
    const [, base, id] = await p.waitFor(/dashboard: (http:\/\/127\.0\.0\.1:\d+\/)\?run=(\S+)/);
    await p.waitFor(/still serving/);
    const sum = await (await fetch(`${base}api/runs/${id}/summary`)).json() as RunSummary;
    deepEqual([sum.phase, sum.verdict], ["finished", "RESEARCH ANSWERED"]);
    // A finished run's event stream replays every tick and ends by itself.
    const events = await (await fetch(`${base}api/runs/${id}/events`)).text();
    ok(events.trimEnd().endsWith("event: done\ndata: {}"));
    equal(events.split("event: tick").length - 1, sum.tick + 1);
    p.child.kill("SIGINT");
    const out = await p.finish();
    equal(out.code, 0, out.stderr);
  },
});

Deno.test({
  name: "arrow serve beyond loopback with --no-token needs --allow-host, and then checks the Host",
  ...SANITIZE,
  async fn() {
    const open = await spawnArrow([
      "serve",
      "--port",
      "0",
      "--host",
      "0.0.0.0",
      "--no-token",
      "--runs-dir",
      runsDir(),
    ])
      .finish();
    equal(open.code, 1);
    match(open.stderr, /Cannot listen on 0\.0\.0\.0 without an access token or a host allowlist/);
    const p = spawnArrow([
      "serve",
      "--port",
      "0",
      "--host",
      "0.0.0.0",
      "--no-token",
      "--allow-host",
      "arrow.lab",
      "--runs-dir",
      runsDir(),
    ]);
    const [, port] = await p.waitFor(/http:\/\/0\.0\.0\.0:(\d+)\/\s/);
    const other = await fetch(`http://127.0.0.1:${port}/api/runs`);
    equal(other.status, 403);
    await other.body?.cancel();
    // fetch() will not send another Host than the URL's, so this request goes over a plain socket.
    equal(await statusOver(Number(port), `arrow.lab:${port}`, "/api/runs"), 200);
    p.child.kill("SIGINT");
    equal((await p.finish()).code, 0);
  },
});
