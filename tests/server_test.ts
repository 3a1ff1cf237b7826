/**
 * The dashboard's API, tested through `app.request()` (no socket) on run directories made by really running
 * scenarios. The commands that put it on a socket are tested in src/cli/serve_test.ts.
 *
 * @module
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { createHash } from "node:crypto";
import { resolveBuiltin } from "../src/cli/catalog.ts";
import { prepare } from "../src/engine/prepare.ts";
import { startRun } from "../src/engine/run.ts";
import type { Incident } from "../src/model/state.ts";
import { createApp } from "../src/server/app.ts";
import { ASSETS } from "../src/server/assets.gen.ts";
import { Feeds } from "../src/server/feeds.ts";
import type { MetricsView } from "../src/server/metrics.ts";
import type { RunSummary } from "../src/server/runs.ts";

const SANITIZE = { sanitizeOps: true, sanitizeResources: true } as const;

interface Fixture {
  runsDir: string;
  plateau: string;
  scope: string;
}

let fixture: Promise<Fixture> | undefined;
const tmp = Deno.makeTempDirSync({ prefix: "arrow-server-test-" });
globalThis.addEventListener("unload", () => Deno.removeSync(tmp, { recursive: true }));

async function runScenario(runsDir: string, name: string): Promise<string> {
  const id = `20260101-000000-${name}-test`;
  const runDir = `${runsDir}/${id}`;
  Deno.mkdirSync(runDir, { recursive: true });
  const res = resolveBuiltin(name);
  Deno.writeTextFileSync(`${runDir}/run.json`, JSON.stringify({ run_id: id, scenario: name, mode: "mock" }));
  await startRun(prepare(res.plan, res.faults, name, "mock"), { runDir, tickMs: 0, maxTicks: 5000 });
  return id;
}

/** Two finished runs, made once for the whole file. */
function runs(): Promise<Fixture> {
  return fixture ??= (async () => {
    const runsDir = `${tmp}/runs`;
    const plateau = await runScenario(runsDir, "plateau");
    const scope = await runScenario(runsDir, "trap_scope");
    return { runsDir, plateau, scope };
  })();
}

const read = (p: string) => Deno.readTextFileSync(p);

/** Reads SSE frames from a response until `until` says stop (or the stream ends). */
async function frames(
  res: Response,
  until: (f: { id?: string; event?: string; data?: string }[]) => boolean,
): Promise<{ id?: string; event?: string; data?: string }[]> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const out: { id?: string; event?: string; data?: string }[] = [];
  let buf = "";
  try {
    while (!until(out)) {
      const { done, value } = await reader.read();
      if (done) break;
      buf += value;
      let cut: number;
      while ((cut = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, cut);
        buf = buf.slice(cut + 2);
        const f: Record<string, string> = {};
        for (const l of block.split("\n")) {
          const i = l.indexOf(": ");
          if (i > 0) f[l.slice(0, i)] = l.slice(i + 2);
        }
        if (f.event || f.data) out.push(f);
      }
    }
  } finally {
    await reader.cancel();
  }
  return out;
}

Deno.test({
  name: "GET /api/runs lists runs with phase, verdict and counts",
  ...SANITIZE,
  async fn() {
    const { runsDir, plateau, scope } = await runs();
    const feeds = new Feeds();
    const res = await createApp({ runsDir, feeds }).request("/api/runs");
    equal(res.status, 200);
    const list = await res.json() as RunSummary[];
    deepEqual(list.map((r) => r.id).sort(), [plateau, scope].sort());
    const p = list.find((r) => r.id === plateau)!;
    deepEqual([p.phase, p.verdict, p.scenario, p.incidents], ["finished", "NEGATIVE RESULT", "plateau", 2]);
    equal(list.find((r) => r.id === scope)!.verdict, "RESULT WITHHELD");
    await feeds.close();
  },
});

Deno.test({
  name: "run endpoints serve state, incidents, report, replay and metrics from the run directory",
  ...SANITIZE,
  async fn() {
    const { runsDir, plateau } = await runs();
    const dir = `${runsDir}/${plateau}`;
    const feeds = new Feeds();
    const app = createApp({ runsDir, feeds });
    const state = await app.request(`/api/runs/${plateau}`);
    equal(await state.text(), read(`${dir}/state.json`));
    const incidents = await (await app.request(`/api/runs/${plateau}/incidents`)).json() as Incident[];
    deepEqual(incidents, read(`${dir}/incidents.jsonl`).trim().split("\n").map((l) => JSON.parse(l)));
    deepEqual(incidents.map((i) => i.type), ["PLATEAU_TRIP", "PLATEAU_TRIP"]);
    const report = await app.request(`/api/runs/${plateau}/report`);
    match(report.headers.get("content-type")!, /^text\/markdown/);
    equal(await report.text(), read(`${dir}/report/report.md`));
    equal(await (await app.request(`/api/runs/${plateau}/replay`)).text(), read(`${dir}/replay.jsonl`));
    const m = await (await app.request(`/api/runs/${plateau}/metrics`)).json() as MetricsView;
    deepEqual(Object.keys(m.series), ["N4", "N7"]);
    deepEqual(m.baseline, { node: "N3", score: 0.6041 });
    const points = read(`${dir}/replay.jsonl`).split('"e":"metric"').length - 1;
    equal(m.series.N4!.step.length + m.series.N7!.step.length, points);
    equal(m.series.N4!.step.at(-1), 42);
    await feeds.close();
  },
});

Deno.test({
  name: "events stream every tick with its id, resumes after Last-Event-ID or ?after=, and ends with done",
  ...SANITIZE,
  async fn() {
    const { runsDir, plateau } = await runs();
    const feeds = new Feeds();
    const app = createApp({ runsDir, feeds });
    const all = await frames(await app.request(`/api/runs/${plateau}/events`), () => false);
    const ticks = all.filter((f) => f.event === "tick").map((f) => Number(f.id));
    deepEqual(ticks, Array.from({ length: 27 }, (_, i) => i));
    equal(all.at(-1)?.event, "done");
    equal(JSON.parse(all[0]!.data!).events[0].e, "init");
    const after = await frames(await app.request(`/api/runs/${plateau}/events?after=20`), () => false);
    deepEqual(after.filter((f) => f.id).map((f) => f.id), ["21", "22", "23", "24", "25", "26"]);
    const resumed = await frames(
      await app.request(`/api/runs/${plateau}/events?after=3`, { headers: { "last-event-id": "24" } }),
      () => false,
    );
    deepEqual(resumed.map((f) => f.id ?? f.event), ["25", "26", "done"]);
    await feeds.close();
  },
});

/** A run directory that is "live": the first `n` lines of a finished run's replay, the rest to come. */
function liveCopy(runsDir: string, from: string, id: string, n: number): { lines: string[]; path: string } {
  const lines = read(`${runsDir}/${from}/replay.jsonl`).trim().split("\n");
  Deno.mkdirSync(`${runsDir}/${id}`);
  const path = `${runsDir}/${id}/replay.jsonl`;
  Deno.writeTextFileSync(path, lines.slice(0, n).map((l) => l + "\n").join(""));
  return { lines, path };
}

Deno.test({
  name: "events follow a run written by another process (file watcher) until its verdict",
  ...SANITIZE,
  async fn() {
    const { runsDir, plateau } = await runs();
    const { lines, path } = liveCopy(runsDir, plateau, "live-watch", 5);
    const feeds = new Feeds();
    const app = createApp({ runsDir, feeds });
    try {
      const res = await app.request("/api/runs/live-watch/events");
      const reader = frames(res, (f) => f.at(-1)?.event === "done");
      // Appending happens while the stream is open; the watcher must pick each part up.
      Deno.writeTextFileSync(path, lines[5]! + "\n" + lines[6]!.slice(0, 10), { append: true });
      Deno.writeTextFileSync(path, lines[6]!.slice(10) + "\n", { append: true });
      Deno.writeTextFileSync(path, lines.slice(7).map((l) => l + "\n").join(""), { append: true });
      const got = await reader;
      deepEqual(got.filter((f) => f.id).map((f) => Number(f.id)), lines.map((_, i) => i));
      equal(got.at(-1)?.event, "done");
    } finally {
      await feeds.close();
    }
  },
});

Deno.test({
  name: "events of a pinned run arrive when its feed is poked (the in-process path of run --serve)",
  ...SANITIZE,
  async fn() {
    const { runsDir, plateau } = await runs();
    const { lines, path } = liveCopy(runsDir, plateau, "live-pinned", 1);
    const feeds = new Feeds();
    const feed = feeds.pin("live-pinned", `${runsDir}/live-pinned`);
    const app = createApp({ runsDir, feeds });
    const res = await app.request("/api/runs/live-pinned/events");
    let k = 1;
    const got = await frames(res, (f) => {
      if (f.at(-1)?.event === "done") return true;
      // Each time the previous tick has arrived, the "engine" appends the next one and pokes.
      if (f.filter((x) => x.id).length === k && k < lines.length) {
        Deno.writeTextFileSync(path, lines[k++]! + "\n", { append: true });
        feed.poke();
      }
      return false;
    });
    equal(got.filter((f) => f.id).length, lines.length);
    await feeds.close();
  },
});

Deno.test({
  name: "HEAD of an event stream answers with headers and follows nothing",
  ...SANITIZE,
  async fn() {
    const { runsDir, plateau } = await runs();
    liveCopy(runsDir, plateau, "live-head", 2);
    const feeds = new Feeds();
    const res = await createApp({ runsDir, feeds }).request("/api/runs/live-head/events", { method: "HEAD" });
    equal(res.status, 200);
    match(res.headers.get("content-type")!, /^text\/event-stream/);
    equal(res.body, null);
    await feeds.close();
  },
});

Deno.test({
  name: "closing the feeds ends an open event stream (a server shutdown never hangs)",
  ...SANITIZE,
  async fn() {
    const { runsDir, plateau } = await runs();
    liveCopy(runsDir, plateau, "live-close", 3);
    const feeds = new Feeds();
    const res = await createApp({ runsDir, feeds }).request("/api/runs/live-close/events");
    const got = frames(res, () => false);
    await feeds.close();
    equal((await got).filter((f) => f.id).length, 3);
  },
});

Deno.test({
  name: "run ids that are not plain names of run directories get 404",
  ...SANITIZE,
  async fn() {
    const { runsDir } = await runs();
    Deno.mkdirSync(`${tmp}/secret`, { recursive: true });
    Deno.writeTextFileSync(`${tmp}/secret/state.json`, '{"v":1}');
    Deno.symlinkSync(`${tmp}/secret`, `${runsDir}/evil-link`);
    Deno.mkdirSync(`${runsDir}/not-a-run`);
    const feeds = new Feeds();
    const app = createApp({ runsDir, feeds });
    for (
      const p of [
        "/api/runs/..%2F..%2Fetc",
        "/api/runs/..%2F..%2Fetc/report",
        "/api/runs/%2e%2e",
        "/api/runs/%2e%2e/state",
        "/api/runs/..%2Fsecret",
        "/api/runs/.%2E%2Fsecret/incidents",
        "/api/runs/evil-link",
        "/api/runs/evil-link/events",
        "/api/runs/not-a-run",
        "/api/runs/no-such-run/metrics",
        "/api/runs/a%00b",
        "/assets/..%2F..%2Fdeno.json",
        "/../deno.json",
      ]
    ) {
      const res = await app.request(p);
      equal(res.status, 404, p);
      await res.body?.cancel();
    }
    Deno.removeSync(`${runsDir}/evil-link`);
    Deno.removeSync(`${runsDir}/not-a-run`);
    await feeds.close();
  },
});

/** Every file under `dir` with its size, mtime and content hash. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of Deno.readDirSync(d)) {
      const p = `${d}/${e.name}`;
      const st = Deno.lstatSync(p);
      if (st.isDirectory) walk(p);
      else {
        const hash = createHash("sha256").update(Deno.readFileSync(p)).digest("hex");
        out[p] = `${st.size} ${st.mtime?.getTime()} ${hash}`;
      }
    }
  };
  walk(dir);
  return out;
}

Deno.test({
  name: "no endpoint writes: other methods get 405 and serving leaves the runs directory byte-identical",
  ...SANITIZE,
  async fn() {
    const { runsDir, plateau } = await runs();
    const before = snapshot(runsDir);
    const feeds = new Feeds();
    const app = createApp({ runsDir, feeds });
    const paths = [
      "/",
      "/api/runs",
      ...["", "/summary", "/incidents", "/report", "/replay", "/metrics", "/events"]
        .map((s) => `/api/runs/${plateau}${s}`),
      Object.keys(ASSETS).find((p) => p.endsWith(".js"))!,
    ];
    for (const p of paths) {
      const res = await app.request(p);
      equal(res.status, 200, p);
      await res.arrayBuffer();
      for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
        const w = await app.request(p, { method, body: "x" });
        equal(w.status, 405, `${method} ${p}`);
        equal(w.headers.get("allow"), "GET, HEAD");
        await w.body?.cancel();
      }
    }
    await feeds.close();
    deepEqual(snapshot(runsDir), before);
  },
});

Deno.test({
  name: "the page and its hashed assets are served from memory with strict headers",
  ...SANITIZE,
  async fn() {
    const { runsDir, plateau } = await runs();
    const feeds = new Feeds();
    const app = createApp({ runsDir, feeds });
    const page = await app.request("/");
    const html = await page.text();
    match(page.headers.get("content-security-policy")!, /script-src 'self'/);
    equal(page.headers.get("x-content-type-options"), "nosniff");
    const js = html.match(/src="(\/assets\/app\.[0-9a-f]{12}\.js)"/)?.[1];
    const css = html.match(/href="(\/assets\/app\.[0-9a-f]{12}\.css)"/)?.[1];
    ok(js && css, "page links a hashed script and stylesheet");
    const hinted = await app.request(`/?run=${plateau}`);
    match(hinted.headers.get("link")!, new RegExp(`</api/runs/${plateau}/replay>; rel=preload; as=fetch`));
    await hinted.arrayBuffer();
    const unknown = await app.request("/?run=..%2Fetc");
    equal(unknown.headers.get("link"), null);
    await unknown.arrayBuffer();
    const script = await app.request(js);
    match(script.headers.get("content-type")!, /^text\/javascript/);
    match(script.headers.get("cache-control")!, /immutable/);
    const etag = script.headers.get("etag")!;
    await script.arrayBuffer();
    equal((await app.request(js, { headers: { "if-none-match": etag } })).status, 304);
    match((await app.request(css)).headers.get("content-type")!, /^text\/css/);
    await feeds.close();
  },
});

Deno.test({
  name: "a loopback server refuses requests addressed to other host names (DNS rebinding)",
  ...SANITIZE,
  async fn() {
    const { runsDir } = await runs();
    const feeds = new Feeds();
    const app = createApp({ runsDir, feeds, hosts: ["127.0.0.1", "localhost"] });
    equal((await app.request("http://attacker.example/api/runs")).status, 403);
    const ok200 = await app.request("http://127.0.0.1:8765/api/runs");
    equal(ok200.status, 200);
    await ok200.arrayBuffer();
    await feeds.close();
  },
});

Deno.test("the dashboard's bundle imports nothing: no node: or other module a browser cannot load", () => {
  // The UI reaches the tree's types and reducer, and through them the tabular toolkit: a static import of a
  // runtime module there (node:zlib for gzip files) would leave an import the browser fails on.
  for (const [path, a] of Object.entries(ASSETS)) {
    if (!path.endsWith(".js")) continue;
    const imports =
      a.body.match(/\bimport\s*(?:[\w*{}\s,$]+from\s*)?["'][^"']+["']|\bimport\(\s*["'][^"']+["']\s*\)/g) ??
        [];
    deepEqual(imports, [], path);
    equal(/["']node:[a-z_]+["']/.test(a.body), false, `${path} names a node: module`);
  }
});
