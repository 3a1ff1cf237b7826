/**
 * Memory and time of the scope machinery on one huge scope (issue 11, F10): the objects the engine's World
 * uses — fingerprint scans, the scope record's per-tick diff and scopes.jsonl line, the verification
 * snapshot, the guard's scan of an idle scope, a revert — and, in a process of its own as `arrow resume`
 * is, the truncate + restore of every scope from scopes.jsonl.
 *
 * Each size runs in a child process (so peaks do not mix); the child grows the scope in batches as a
 * worker would (a scan and a record after each batch), then ticks with nothing changed, snapshots, turns
 * the node idle and lets `World.sense` guard it, writes one foreign file and reverts it. Figures: peak RSS
 * (the kernel's VmHWM) against the process's RSS before the scope existed, the largest V8 heap seen, the
 * heap still live after a full GC at the end, ms per scan+record tick and per guard tick, scopes.jsonl size.
 *
 * Usage: deno task bench:scope-memory [--files 10000,100000,300000] [--batches 10] [--ticks 5]
 *        [--dir /tmp] [--heap-mb N] [--unique false]
 * (`--heap-mb` passes --max-old-space-size to the children; `--unique false` writes the hostile attack's
 * contents — 1,000 distinct ones — instead of one distinct content per file.)
 *
 * @module
 */
import { parseArgs } from "node:util";
import { loadPlan } from "../src/graph/load.ts";
import { initialState, type RunState } from "../src/model/state.ts";
import { World } from "../src/runtime/world.ts";

const MiB = 2 ** 20;

interface Figures {
  files: number;
  baseMb: number;
  peakMb: number;
  heapPeakMb: number;
  liveMb: number;
  growMs: number;
  tickMs: number;
  guardMs: number;
  snapMs: number;
  revertMs: number;
  jsonlMb: number;
  snapsMb: number;
  guardSaw: number;
  reverted: boolean;
}

interface ResumeFigures {
  baseMb: number;
  peakMb: number;
  heapPeakMb: number;
  restoreMs: number;
  lost: number;
}

/** The kernel's peak and current resident set of this process, in MiB. */
function rssMb(): { peak: number; now: number } {
  const status = Deno.readTextFileSync("/proc/self/status");
  const kb = (key: string) => Number(status.match(new RegExp(`^${key}:\\s+(\\d+)`, "m"))?.[1] ?? 0);
  return { peak: kb("VmHWM") / 1024, now: kb("VmRSS") / 1024 };
}

let heapPeak = 0;
function sample(): void {
  heapPeak = Math.max(heapPeak, Deno.memoryUsage().heapUsed);
}

const PLAN = `
question: How much memory does a huge scope cost?
protocol: { version: v, metric: m, direction: maximize }
nodes:
  - { id: S, kind: fast, role: other }
`;

function stateFor(runDir: string): RunState {
  const plan = loadPlan(PLAN, `${runDir}/plan.yaml`).plan!;
  const state = initialState(plan, { scenario: "bench", mode: "mock" });
  state.nodes.S!.spawned = true;
  state.nodes.S!.status = "running";
  return state;
}

/** Writes files [from, to) of the scope: 1,000 to a directory, as the hostile attack does. */
function writeFiles(scope: string, from: number, to: number, unique: boolean): void {
  const enc = new TextEncoder();
  for (let i = from; i < to; i++) {
    const d = `${scope}/d${String(Math.floor(i / 1000)).padStart(3, "0")}`;
    if (i % 1000 === 0 || i === from) Deno.mkdirSync(d, { recursive: true });
    Deno.writeFileSync(
      `${d}/f${String(i % 1000).padStart(4, "0")}`,
      enc.encode(unique ? `${i}` : `${i % 1000}`),
    );
  }
}

const time = (f: () => unknown): number => {
  const t0 = performance.now();
  f();
  sample();
  return performance.now() - t0;
};

async function one(files: number, batches: number, ticks: number, runDir: string, unique: boolean) {
  const base = rssMb().now;
  const state = stateFor(runDir);
  const world = new World({ runDir });
  const node = state.plan.nodes[0]!;
  const scope = world.scope(node);
  Deno.mkdirSync(scope, { recursive: true });
  world.scopes.record(state);
  // Growing: the worker writes a batch between ticks; SENSE scans the running scope, PERSIST records it.
  const tick = () => {
    state.tick++;
    world.scans.set("S", world.fingerprints.scan(scope));
    world.scopes.record(state, new Set(["S"]));
  };
  let growMs = 0;
  for (let b = 0; b < batches; b++) {
    writeFiles(scope, Math.floor(files * b / batches), Math.floor(files * (b + 1) / batches), unique);
    growMs += time(tick);
  }
  // Files older than the racy window are served from the fingerprint cache from now on.
  await new Promise((r) => setTimeout(r, 120));
  time(tick);
  let tickMs = 0;
  for (let t = 0; t < ticks; t++) tickMs += time(tick);
  // Verified: the snapshot of what SENSE saw, then the node is idle and the guard watches its scope.
  const snapMs = time(() => world.scopes.snapshot(node, world.scans.get("S")));
  state.nodes.S!.status = "verified";
  let guardMs = 0;
  for (let t = 0; t < ticks; t++) {
    const t0 = performance.now();
    await world.sense(state, ++state.tick);
    sample();
    guardMs += performance.now() - t0;
    world.scopes.record(state, new Set());
  }
  Deno.writeTextFileSync(`${scope}/d000/foreign.txt`, "written by a sibling");
  const obs = await world.sense(state, ++state.tick);
  const saw = obs.guard.find((g) => g.owner === "S");
  const r0 = performance.now();
  await world.execute(state, [{ a: "revert", node: "S", paths: saw?.changed ?? [] }]);
  sample();
  const revertMs = performance.now() - r0;
  world.scopes.record(state, new Set(["S"]));
  const reverted = !(await Deno.stat(`${scope}/d000/foreign.txt`).then(() => true, () => false));
  Deno.writeTextFileSync(`${runDir}/state.json`, JSON.stringify({ tick: state.tick }));
  const peak = rssMb().peak;
  (globalThis as { gc?: () => void }).gc?.();
  const live = Deno.memoryUsage().heapUsed;
  await world.shutdown();
  const size = (p: string) => Deno.statSync(p).size / MiB;
  const out: Figures = {
    files,
    baseMb: base,
    peakMb: peak,
    heapPeakMb: heapPeak / MiB,
    liveMb: live / MiB,
    growMs: growMs / batches,
    tickMs: tickMs / ticks,
    guardMs: guardMs / ticks,
    snapMs,
    revertMs,
    jsonlMb: size(`${runDir}/.arrow/scopes.jsonl`),
    snapsMb: size(`${runDir}/.arrow/snaps.json`),
    guardSaw: saw?.changed.length ?? 0,
    reverted,
  };
  console.log(JSON.stringify(out));
}

/** A fresh process restoring every scope from the record, as `arrow resume` does after a kill -9. */
function resume(runDir: string): void {
  const base = rssMb().now;
  const state = stateFor(runDir);
  state.tick = (JSON.parse(Deno.readTextFileSync(`${runDir}/state.json`)) as { tick: number }).tick;
  const world = new World({ runDir });
  // A file the crash left behind that the record does not know: restore removes it.
  Deno.writeTextFileSync(`${world.scope(state.plan.nodes[0]!)}/d001/late.txt`, "after the last record");
  let lost: string[] = [];
  const restoreMs = time(() => {
    world.scopes.truncate(state.tick);
    lost = world.scopes.restore(state);
  });
  const out: ResumeFigures = {
    baseMb: base,
    peakMb: rssMb().peak,
    heapPeakMb: heapPeak / MiB,
    restoreMs,
    lost: lost.length,
  };
  console.log(JSON.stringify(out));
}

async function child(args: string[]): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), { args, stdout: "piped", stderr: "inherit" }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  if (!out.success) throw new Error(`Cannot measure: child exited ${out.code}: ${text.slice(-400)}`);
  return text.split("\n").at(-1)!;
}

async function main(): Promise<void> {
  const { values: o } = parseArgs({
    args: Deno.args,
    options: {
      files: { type: "string", default: "10000,100000,300000" },
      batches: { type: "string", default: "10" },
      ticks: { type: "string", default: "5" },
      dir: { type: "string", default: "/tmp" },
      "heap-mb": { type: "string" },
      unique: { type: "string", default: "true" },
      one: { type: "string" },
      resume: { type: "string" },
    },
  });
  if (o.resume) return resume(o.resume);
  if (o.one) {
    return await one(Number(o.one), Number(o.batches), Number(o.ticks), o.dir!, o.unique !== "false");
  }
  const script = new URL(import.meta.url).pathname;
  const v8 = ["--expose-gc", ...(o["heap-mb"] ? [`--max-old-space-size=${o["heap-mb"]}`] : [])];
  const runArgs = ["run", "-A", "--no-prompt", `--v8-flags=${v8.join(",")}`, script];
  console.log(
    `bench_scope_memory: one scope, ${o.batches} growth batches, ${o.ticks} quiet ticks, ` +
      `${o.unique === "false" ? "1,000 distinct contents" : "a distinct content per file"}` +
      `${o["heap-mb"] ? `, max-old-space ${o["heap-mb"]} MB` : ""}\n`,
  );
  const cols = [
    "files",
    "base MB",
    "peak MB",
    "+scope MB",
    "heap peak",
    "live heap",
    "grow ms/tick",
    "ms/tick",
    "guard ms",
    "snapshot ms",
    "revert ms",
    "scopes.jsonl",
    "| resume peak",
    "+scope",
    "restore ms",
  ];
  console.log(cols.join("  "));
  for (const n of o.files!.split(",").map(Number)) {
    const runDir = await Deno.makeTempDir({ dir: o.dir, prefix: "arrow-scope-mem-" });
    try {
      const f = JSON.parse(
        await child([
          ...runArgs,
          "--one",
          String(n),
          "--batches",
          o.batches!,
          "--ticks",
          o.ticks!,
          "--dir",
          runDir,
          "--unique",
          o.unique!,
        ]),
      ) as Figures;
      const r = JSON.parse(await child([...runArgs, "--resume", runDir])) as ResumeFigures;
      const mb = (x: number) => x.toFixed(0);
      const ms = (x: number) => x.toFixed(1);
      const cells = [
        String(n),
        mb(f.baseMb),
        mb(f.peakMb),
        mb(f.peakMb - f.baseMb),
        mb(f.heapPeakMb),
        mb(f.liveMb),
        ms(f.growMs),
        ms(f.tickMs),
        ms(f.guardMs),
        ms(f.snapMs),
        ms(f.revertMs),
        `${f.jsonlMb.toFixed(1)} MB`,
        `| ${mb(r.peakMb)}`,
        mb(r.peakMb - r.baseMb),
        ms(r.restoreMs),
      ];
      console.log(cells.map((c, i) => c.padStart(cols[i]!.length)).join("  "));
      const wrong = [
        f.guardSaw !== 1 ? `the guard saw ${f.guardSaw} changed paths, not 1` : "",
        !f.reverted ? "the foreign file was not reverted" : "",
        r.lost ? `resume lost ${r.lost} paths` : "",
      ].filter(Boolean);
      if (wrong.length) console.log(`  ! ${wrong.join("; ")}`);
    } finally {
      await Deno.remove(runDir, { recursive: true });
    }
  }
}

if (import.meta.main) await main();
