/**
 * The dashboard server against hostile requests and a hostile run directory (a worker that planted links,
 * FIFOs and huge lines), tested through `app.request()` without a socket; the memory bound under slow
 * clients is measured on a real server process in tests/server_memory_test.ts.
 *
 * @module
 */
import { deepEqual, equal, match, ok, rejects, throws } from "node:assert/strict";
import { createApp } from "../src/server/app.ts";
import { Feeds } from "../src/server/feeds.ts";
import { accessFor, listen } from "../src/server/listen.ts";
import { FRAME_CAP } from "../src/server/replay_feed.ts";

const SANITIZE = { sanitizeOps: true, sanitizeResources: true } as const;
const SECURITY = ["content-security-policy", "x-content-type-options", "referrer-policy", "x-frame-options"];

const tmp = Deno.makeTempDirSync({ prefix: "arrow-abuse-test-" });
globalThis.addEventListener("unload", () => Deno.removeSync(tmp, { recursive: true }));

const line = (tick: number, pad = 0, final = false) =>
  JSON.stringify({
    events: final
      ? [{ e: "verdict", verdict: "NO VERDICT", detail: {} }]
      : pad
      ? [{ e: "note", node: "N1", set: { x: "y".repeat(pad) } }]
      : [],
    tick,
  });

/** A runs directory with one run `r` holding the given replay lines and a state.json. */
function runsWith(lines: string[]): { runsDir: string; dir: string } {
  const runsDir = Deno.makeTempDirSync({ dir: tmp });
  const dir = `${runsDir}/r`;
  Deno.mkdirSync(`${dir}/report`, { recursive: true });
  Deno.writeTextFileSync(`${dir}/replay.jsonl`, lines.map((l) => l + "\n").join(""));
  Deno.writeTextFileSync(`${dir}/state.json`, JSON.stringify({ scenario: "s", tick: lines.length }));
  Deno.writeTextFileSync(`${dir}/report/report.md`, "# report\n");
  return { runsDir, dir };
}

function secured(res: Response, what: string): void {
  for (const h of SECURITY) ok(res.headers.get(h), `${what}: ${h}`);
}

Deno.test({
  name: "a malformed Host header gets 400 with the security headers, never a bare 500",
  ...SANITIZE,
  async fn() {
    const { runsDir } = runsWith([line(0)]);
    const feeds = new Feeds();
    const app = createApp({ runsDir, feeds, hosts: ["127.0.0.1", "localhost"] });
    for (
      const host of ["127.0.0.1 evil", "127.0.0.1:1:2", "[::1", "a/b", "évil", "127.0.0.1:99999", "x\tb"]
    ) {
      const res = await app.request("/api/runs", { headers: { host } });
      equal(res.status, 400, host);
      secured(res, host);
      deepEqual(await res.json(), { error: "malformed Host header" });
    }
    const wrong = await app.request("/api/runs", { headers: { host: "attacker.example:8765" } });
    equal(wrong.status, 403);
    secured(wrong, "unknown host");
    await wrong.body?.cancel();
    const good = await app.request("/api/runs", { headers: { host: "LOCALHOST:8765" } });
    equal(good.status, 200);
    secured(good, "ok");
    await good.body?.cancel();
    await feeds.close();
  },
});

Deno.test({
  name: "with a token, every request needs it: bearer header, or the cookie set by opening the ?token= link",
  ...SANITIZE,
  async fn() {
    const { runsDir } = runsWith([line(0)]);
    const feeds = new Feeds();
    const token = "t0ken-for-tests-0123456789";
    const app = createApp({ runsDir, feeds, token });
    for (
      const [what, init] of [
        ["no token", {}],
        ["wrong bearer", { headers: { authorization: "Bearer nope" } }],
        ["wrong cookie", { headers: { cookie: "arrow_token=nope" } }],
      ] as const
    ) {
      const res = await app.request("/api/runs", init);
      equal(res.status, 401, what);
      secured(res, what);
      match((await res.json()).error, /access token/);
    }
    const bearer = await app.request("/api/runs", { headers: { authorization: `Bearer ${token}` } });
    equal(bearer.status, 200);
    await bearer.body?.cancel();
    const link = await app.request(`/?run=r&token=${token}`);
    equal(link.status, 303, "the page link drops the token from the address bar");
    equal(link.headers.get("location"), "/?run=r");
    const cookie = link.headers.get("set-cookie")!;
    match(cookie, /^arrow_token=t0ken-for-tests-0123456789; Path=\/; HttpOnly; SameSite=Strict$/);
    secured(link, "redirect");
    const page = await app.request("/?run=r", { headers: { cookie: `other=1; ${cookie.split(";")[0]}` } });
    equal(page.status, 200);
    await page.body?.cancel();
    const api = await app.request(`/api/runs/r/summary?token=${token}`);
    equal(api.status, 200, "an API link with the token works and sets the cookie");
    ok(api.headers.get("set-cookie"));
    await api.body?.cancel();
    await feeds.close();
  },
});

Deno.test("listen() refuses to serve beyond loopback without a token or a host allowlist", () => {
  throws(() => accessFor("0.0.0.0", null, undefined), /Cannot listen on 0\.0\.0\.0 without an access token/);
  const generated = accessFor("0.0.0.0", undefined, undefined);
  match(generated.token!, /^[A-Za-z0-9_-]{43}$/);
  equal(generated.hosts, undefined);
  deepEqual(accessFor("0.0.0.0", null, ["arrow.lab"]), { token: null, hosts: ["arrow.lab"] });
  deepEqual(accessFor("127.0.0.1", undefined, undefined), {
    token: null,
    hosts: ["127.0.0.1", "localhost", "[::1]"],
  });
  equal(accessFor("127.0.0.1", "given-token-0123456789", undefined).token, "given-token-0123456789");
});

Deno.test({
  name: "listen() beyond loopback prints a link carrying its token and refuses requests without it",
  ...SANITIZE,
  async fn() {
    const { runsDir } = runsWith([line(0)]);
    const served = listen({ runsDir, host: "0.0.0.0", port: 0 });
    try {
      const url = new URL(served.url);
      const token = url.searchParams.get("token");
      equal(token, served.token);
      const base = `http://127.0.0.1:${url.port}`;
      const bare = await fetch(`${base}/api/runs`);
      equal(bare.status, 401);
      await bare.body?.cancel();
      const withToken = await fetch(`${base}/api/runs`, { headers: { authorization: `Bearer ${token}` } });
      equal(withToken.status, 200);
      deepEqual((await withToken.json()).map((r: { id: string }) => r.id), ["r"]);
    } finally {
      await served.close();
    }
  },
});

Deno.test({
  name: "no link planted in a run directory is followed: files, the report folder, the lock, the replay",
  ...SANITIZE,
  async fn() {
    const { runsDir, dir } = runsWith([line(0), line(1)]);
    const secret = `${tmp}/secret.txt`;
    Deno.writeTextFileSync(secret, '{"scenario":"LEAKED","tick":7}');
    Deno.removeSync(`${dir}/state.json`);
    Deno.symlinkSync(secret, `${dir}/state.json`);
    Deno.removeSync(`${dir}/report`, { recursive: true });
    Deno.mkdirSync(`${tmp}/elsewhere`, { recursive: true });
    Deno.writeTextFileSync(`${tmp}/elsewhere/report.md`, "LEAKED");
    Deno.symlinkSync(`${tmp}/elsewhere`, `${dir}/report`);
    Deno.mkdirSync(`${dir}/.arrow`);
    Deno.symlinkSync("/dev/zero", `${dir}/.arrow/lock`);
    const feeds = new Feeds();
    const app = createApp({ runsDir, feeds });
    const state = await app.request("/api/runs/r");
    equal(state.status, 403);
    match((await state.json()).error, /not a regular file/);
    const report = await app.request("/api/runs/r/report");
    equal(report.status, 403);
    await report.body?.cancel();
    const summary = await (await app.request("/api/runs/r/summary")).json();
    deepEqual([summary.scenario, summary.tick, summary.phase], ["?", 0, "stopped"]);
    // The replay itself swapped for a link: nothing is served from it (run.json keeps it a run).
    Deno.writeTextFileSync(`${dir}/run.json`, "{}");
    Deno.renameSync(`${dir}/replay.jsonl`, `${tmp}/replay.jsonl`);
    Deno.symlinkSync(`${tmp}/replay.jsonl`, `${dir}/replay.jsonl`);
    const replay = await app.request("/api/runs/r/replay");
    equal(replay.status, 403);
    await replay.body?.cancel();
    const incidents = await app.request("/api/runs/r/incidents");
    deepEqual(await incidents.json(), []);
    await feeds.close();
  },
});

Deno.test({
  name: "a FIFO in place of a run file is refused at once, never opened (it would hang the server)",
  ...SANITIZE,
  async fn() {
    const { runsDir, dir } = runsWith([line(0)]);
    Deno.removeSync(`${dir}/state.json`);
    Deno.removeSync(`${dir}/report/report.md`);
    for (const f of ["state.json", "report/report.md", "incidents.jsonl"]) {
      equal((await new Deno.Command("mkfifo", { args: [`${dir}/${f}`] }).output()).code, 0);
    }
    const feeds = new Feeds();
    const app = createApp({ runsDir, feeds });
    equal((await app.request("/api/runs/r")).status, 403);
    equal((await app.request("/api/runs/r/report")).status, 403);
    deepEqual(await (await app.request("/api/runs/r/incidents")).json(), []);
    equal((await (await app.request("/api/runs/r/summary")).json()).scenario, "?");
    await feeds.close();
  },
});

/** Frames of an SSE body until the stream ends. */
async function allFrames(res: Response): Promise<{ id?: string; event?: string; data?: string }[]> {
  const text = await res.text();
  return text.split("\n\n").filter((b) => b.trim()).map((b) =>
    Object.fromEntries(b.split("\n").map((l) => [l.slice(0, l.indexOf(": ")), l.slice(l.indexOf(": ") + 2)]))
  );
}

Deno.test({
  name: "a line over the frame cap is announced as a big event with its tick and size, never sent whole",
  ...SANITIZE,
  async fn() {
    const big = line(1, 2 * FRAME_CAP);
    const { runsDir } = runsWith([line(0), big, line(2, 10), line(3, 0, true)]);
    const feeds = new Feeds();
    const app = createApp({ runsDir, feeds });
    const frames = await allFrames(await app.request("/api/runs/r/events"));
    deepEqual(frames.map((f) => f.event ?? "retry"), ["retry", "tick", "big", "tick", "tick", "done"]);
    deepEqual(JSON.parse(frames[2]!.data!), { bytes: big.length, tick: 1 });
    equal(frames[2]!.id, "1");
    ok(frames.every((f) => (f.data?.length ?? 0) < FRAME_CAP));
    // The whole line is still there for a client that fetches the replay.
    equal((await (await app.request("/api/runs/r/replay")).text()).split("\n")[1], big);
    await feeds.close();
  },
});

Deno.test({
  name: "an event-stream client that stops reading is dropped once lines wait for it, and its feed let go",
  ...SANITIZE,
  async fn() {
    const { runsDir, dir } = runsWith([line(0)]);
    const feeds = new Feeds();
    const feed = feeds.pin("r", dir);
    const app = createApp({ runsDir, feeds, stallMs: 0 });
    const reading = await app.request("/api/runs/r/events");
    const reader = reading.body!.getReader();
    await reader.read(); // retry:
    await reader.read(); // tick 0
    const waitingNext = reader.read();
    const stalled = await app.request("/api/runs/r/events");
    equal(feed.followers, 2);
    Deno.writeTextFileSync(`${dir}/replay.jsonl`, line(1) + "\n", { append: true });
    feed.poke();
    await feed.settled();
    // The reader that was waiting gets tick 1; the one that never read is gone.
    match(new TextDecoder().decode((await waitingNext).value), /^id: 1\n/);
    equal(feed.followers, 1);
    await rejects(stalled.text(), /too slow/);
    await reader.cancel();
    equal(feed.followers, 0);
    await feeds.close();
  },
});
