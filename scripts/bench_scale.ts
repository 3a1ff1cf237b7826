/**
 * Scale benchmark (deno task bench:scale): the black box grows with changes, not with time, and the engine's
 * own cost per tick stays small on large plans.
 *
 * 1. A 10,000-tick mock run of a 3-node plan with one long node writing 1,000 checkpoints: replay.jsonl and
 *    blob sizes, wall time, `arrow resume` of it after a kill near the end, `arrow replay --check`, and the
 *    dashboard's first paint (headless chromium, when installed).
 * 2. A 1,000-node plan: the engine's own cost of one tick when nothing changes — the pure step, SENSE over
 *    1,000 idle scopes (the fingerprint guard), and PERSIST — excluding any child start-up.
 *
 * Goals (issue 10): replay.jsonl ≤ 5 MB, resume ≤ 2 s, replay --check ≤ 2 s, first paint ≤ 1 s, and
 * ≤ 10 ms per tick for the engine on 1,000 nodes.
 *
 * @module
 */
import { stringify } from "yaml";
import { loadPlan } from "../src/graph/load.ts";
import { prepare } from "../src/engine/prepare.ts";
import { startRun } from "../src/engine/run.ts";
import { step } from "../src/engine/step.ts";
import { emptyNodeObs, emptyObservations } from "../src/model/observe.ts";
import type { RunState } from "../src/model/state.ts";
import { BlackBox } from "../src/record/blackbox.ts";
import { World } from "../src/runtime/world.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const MAIN = `${ROOT}src/cli/main.ts`;

function planOf(doc: unknown): ReturnType<typeof loadPlan>["plan"] & object {
  const r = loadPlan(stringify(doc), "bench.yaml");
  if (!r.plan) throw new Error(JSON.stringify(r.errors));
  return r.plan;
}

function du(dir: string): number {
  let n = 0;
  try {
    for (const e of Deno.readDirSync(dir)) {
      const p = `${dir}/${e.name}`;
      if (e.isDirectory) n += du(p);
      else if (e.isFile) n += Deno.lstatSync(p).size;
    }
  } catch {
    return 0;
  }
  return n;
}

const mb = (b: number) => `${(b / 1e6).toFixed(2)} MB`;

async function time(args: string[]): Promise<{ ms: number; code: number }> {
  const t0 = performance.now();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-prompt", MAIN, ...args],
    stdout: "null",
    stderr: "null",
  }).output();
  return { ms: performance.now() - t0, code: out.code };
}

async function longRun(): Promise<void> {
  const plan = planOf({
    question: "scale: one long node, 10,000 stages, a checkpoint every 10",
    protocol: { version: "p1", metric: "dev", direction: "maximize", target: 0.1 },
    nodes: [
      { id: "P", kind: "fast", role: "protocol" },
      { id: "D", kind: "fast", role: "data" },
      { id: "H", kind: "fast", role: "harness" },
      { id: "B", kind: "fast", role: "baseline", mock: { score: 0.1 } },
      {
        id: "T",
        kind: "long",
        role: "train",
        mock: {
          profile: { shape: "rise_cross", stages: 10000, stages_per_tick: 1, ckpt_every: 10, tau: 3000 },
        },
      },
    ],
    edges: [
      { from: "P", to: "D", kind: "artifact" },
      { from: "D", to: "H", kind: "artifact" },
      { from: "H", to: "B", kind: "artifact" },
      { from: "H", to: "T", kind: "artifact" },
    ],
  });
  const dir = await Deno.makeTempDir({ prefix: "arrow-scale-" });
  const run = `${dir}/run`;
  const t0 = performance.now();
  const ctl = new AbortController();
  // Stop the run 10 ticks before its end, as a crash would, so resume has real work left.
  const state = await startRun(prepare(plan, [], "scale", "mock"), {
    runDir: run,
    tickMs: 0,
    maxTicks: 20000,
    signal: ctl.signal,
    onTick: (s) => {
      if (s.tick >= 9995) ctl.abort();
    },
  });
  const wall = performance.now() - t0;
  const replay = Deno.lstatSync(`${run}/replay.jsonl`).size;
  const lastLine = Deno.readTextFileSync(`${run}/replay.jsonl`).trimEnd().split("\n").at(-1)!.length;
  console.log(`10,000-tick run (stopped at tick ${state.tick}, ${state.nodes.T!.ckpts.length} checkpoints):`);
  console.log(`  wall ${(wall / 1000).toFixed(1)} s, ${(wall / state.tick).toFixed(2)} ms/tick`);
  console.log(`  replay.jsonl ${mb(replay)} (goal ≤ 5 MB), last line ${lastLine} B`);
  console.log(
    `  blobs ${mb(du(`${run}/.arrow/blobs`))}, scope record ${
      mb(Deno.lstatSync(`${run}/.arrow/scopes.jsonl`).size)
    }`,
  );
  const resume = await time(["resume", run, "--quiet"]);
  console.log(
    `  arrow resume (finish the last ticks): ${
      (resume.ms / 1000).toFixed(2)
    } s, exit ${resume.code} (goal ≤ 2 s)`,
  );
  const check = await time(["replay", run, "--check", "--json"]);
  console.log(`  arrow replay --check: ${(check.ms / 1000).toFixed(2)} s, exit ${check.code} (goal ≤ 2 s)`);
  await firstPaint(dir, run);
  await Deno.remove(dir, { recursive: true });
}

/** Time from opening the dashboard page of a finished 10k-tick run to its verdict on screen. */
async function firstPaint(runsDir: string, run: string): Promise<void> {
  const chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  });
  if (!chromium) return console.log("  dashboard first paint: skipped (no chromium)");
  const { startDashboard } = await import("../src/cli/serve.ts");
  const puppeteer = (await import("puppeteer-core")).default;
  const served = startDashboard({ runsDir, host: "127.0.0.1", port: 0 }, "serve");
  const browser = await puppeteer.launch({
    executablePath: chromium,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
    ],
  });
  try {
    const page = await browser.newPage();
    const id = run.slice(run.lastIndexOf("/") + 1);
    // Cold: the browser's first page ever (its own start-up included); warm: the same page opened again, as a
    // user reopening the dashboard sees it. Both fetch and fold the whole replay.
    for (const label of ["cold", "warm"]) {
      await page.goto("about:blank");
      const t0 = performance.now();
      await page.goto(`${served.url}?run=${id}`);
      await page.waitForSelector('g.node[data-node="T"]', { timeout: 60_000 });
      const ms = performance.now() - t0;
      console.log(`  dashboard first paint (${label}): ${(ms / 1000).toFixed(2)} s (goal ≤ 1 s)`);
    }
  } finally {
    await browser.close();
    await served.close();
  }
}

async function wideTick(): Promise<void> {
  const n = 1000;
  const nodes: unknown[] = [{ id: "H", kind: "fast", role: "harness" }, {
    id: "T",
    kind: "long",
    role: "train",
  }];
  const edges: unknown[] = [{ from: "H", to: "T", kind: "artifact" }];
  for (let i = 0; i < n - 2; i++) {
    nodes.push({ id: `R${i}`, kind: "fast", role: "other" });
    edges.push({ from: "H", to: `R${i}`, kind: "artifact" });
  }
  const plan = planOf({
    question: "scale: 1,000 nodes",
    protocol: { version: "p", metric: "m", direction: "maximize" },
    nodes,
    edges,
  });
  const dir = await Deno.makeTempDir({ prefix: "arrow-wide-" });
  let state: RunState = prepare(plan, [], "wide", "mock");
  // Every node verified and idle, the trainer running and logging: a tick in which nothing else changes.
  // (The run must stay undecided: after a verdict every tick rewrites state.json, which a run never does.)
  for (const id of Object.keys(state.nodes)) {
    state.nodes[id]!.status = id === "T" ? "running" : "verified";
    state.nodes[id]!.manifest = id === "T" ? null : { node: id };
  }
  for (const id of plan.order) Deno.mkdirSync(`${dir}/nodes/${id}`, { recursive: true });
  for (const id of plan.order) Deno.writeTextFileSync(`${dir}/nodes/${id}/out.txt`, id);
  const world = new World({ runDir: dir });
  world.scopes.record(state);
  const box = new BlackBox(dir);
  box.begin(state);
  const ticks = 200;
  let stepMs = 0, senseMs = 0, persistMs = 0;
  for (let t = 0; t < ticks; t++) {
    let t0 = performance.now();
    const obs = await world.sense(state, state.tick + 1);
    senseMs += performance.now() - t0;
    t0 = performance.now();
    // The trainer logs a line a tick (a run in progress: it is neither hung nor done).
    obs.nodes.T = { ...emptyNodeObs(state.nodes.T!.fp), metrics: [{ step: t + 1, value: t / 1e4 }] };
    const r = step(state, obs.tick === state.tick + 1 ? obs : emptyObservations(state.tick + 1));
    if (r.state.verdict !== null) {
      throw new Error(`the bench's run ended at tick ${r.state.tick}: not a quiet tick`);
    }
    stepMs += performance.now() - t0;
    t0 = performance.now();
    world.scopes.record(r.state, new Set(["T"]));
    box.append({ tick: r.state.tick, events: r.events }, r.state);
    persistMs += performance.now() - t0;
    state = r.state;
    if (t === 0 && r.events.length > 1) {
      console.log(`  (events of a quiet tick: ${r.events.map((e) => e.e).join(", ")})`);
    }
  }
  await box.flush();
  const per = (x: number) => (x / ticks).toFixed(2);
  console.log(`1,000-node plan, a tick in which nothing changes (${ticks} ticks):`);
  console.log(
    `  step ${per(stepMs)} ms + SENSE ${per(senseMs)} ms + PERSIST ${per(persistMs)} ms = ${
      per(stepMs + senseMs + persistMs)
    } ms/tick (goal ≤ 10 ms)`,
  );
  console.log(`  state.json writes: throttled to at most one a second (replay.jsonl is the authority)`);
  await world.shutdown();
  await Deno.remove(dir, { recursive: true });
}

if (import.meta.main) {
  const only = Deno.args[0];
  if (!only || only === "long") await longRun();
  if (!only || only === "wide") await wideTick();
}
