/**
 * Hang detection for children that log no metrics (Arrow's recomputation, the merge gate, the final test):
 * they log progress lines, and silence there for K_FREEZE observations is a hang — counted, for a standby,
 * from the moment it is told to go, never while it waits. With the real harness, a module that never returns
 * from `fit` is called hung in Arrow's recomputation and at the merge gate long before the wall budget.
 *
 * @module
 */
import { equal, ok } from "node:assert/strict";
import { ProcJournal } from "../src/runtime/proc/proc_journal.ts";
import { runChild } from "../src/tree/execute/child.ts";
import { loadData, writeDataFiles } from "../src/tree/data.ts";
import { ARTIFACT_FORMAT } from "../src/tree/execute/executor.ts";
import { MergeGate } from "../src/tree/gate/gate.ts";
import { type ChildCommand, childCommand } from "../src/tree/execute/sandbox.ts";
import { initialState } from "../src/tree/grow.ts";
import { step } from "../src/tree/step.ts";
import type { TreeEvent, TreeState } from "../src/tree/types.ts";
import { K_FREEZE } from "../src/thresholds.ts";
import { fakeConfig, hyp, ok as honest, testSandbox } from "./tree_fake.ts";

const CSV = new URL("./fixtures/tree/small.csv", import.meta.url).pathname;
const HANGS = Deno.readTextFileSync(new URL("./fixtures/tree/modules/hangs.ts", import.meta.url));
/** The hang window under test (K_FREEZE observations of this) and a wall budget far beyond it. */
const OBSERVE_MS = 300;
const WALL_MS = 120_000;

/** Logs one progress line, reads its line, then never logs again (it sleeps, as a hung fit would spin). */
const SILENT_AFTER_ONE = `
Deno.writeTextFileSync(Deno.env.get("ARROW_PROGRESS"), JSON.stringify({ step: 0, phase: "loaded" }) + "\\n");
const buf = new Uint8Array(64);
await Deno.stdin.read(buf);
await new Promise(() => setInterval(() => {}, 1000));
`;

Deno.test("runChild() calls a silent standby hung only after it was told to go, and stops it", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "arrow-tree-hang-" });
  try {
    Deno.mkdirSync(`${dir}/.arrow`);
    const progress = `${dir}/progress.jsonl`;
    Deno.writeTextFileSync(progress, "");
    const cmd: ChildCommand = {
      cmd: Deno.execPath(),
      args: ["eval", "--quiet", SILENT_AFTER_ONE],
      env: { ARROW_PROGRESS: progress },
      cwd: dir,
      audit: `${dir}/audit.jsonl`,
      progress,
      read: [],
      write: [progress],
      sandbox: "deno",
    };
    const observeMs = 150;
    let go: (line: string | null) => void = () => {};
    const started = performance.now();
    const running = runChild(cmd, {
      label: "standby",
      observeMs,
      wallMs: 60_000,
      journal: new ProcJournal(dir),
      stdin: new Promise<string | null>((r) => (go = r)),
      progress: true,
      logDir: `${dir}/logs`,
    });
    // Once it has started (its line is there), waiting longer than the hang window is not a hang for a
    // standby: the wait is what is tested here, not a stand-in for synchronisation.
    const deadline = performance.now() + 60_000;
    while (!Deno.readTextFileSync(progress).includes("loaded")) {
      if (performance.now() > deadline) throw new Error("the child never started");
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 3 * K_FREEZE * observeMs));
    const toldAt = performance.now();
    go("nonce");
    const out = await running;
    ok(out.hung, "the silent child is called hung");
    equal(out.hung.step, 1, "after the one progress line it logged");
    ok(out.overBudget === null);
    ok(out.exit === null || out.exit !== 0, "it was stopped");
    ok(performance.now() - toldAt >= K_FREEZE * observeMs, "not before the window after its line");
    ok(toldAt - started >= 3 * K_FREEZE * observeMs, "it waited past the window before its line");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

/** A run directory with its data files, and a state whose node n1 adds the hanging module to the root. */
function hangingRun(tmp: string) {
  const data = loadData(CSV, "label", { seed: 3 });
  const files = writeDataFiles(tmp, data, 3);
  const ctx = testSandbox(tmp, files, CSV);
  const h = { ...hyp("hangs"), step: { path: "steps/001_hangs.ts", source: HANGS } };
  const events: TreeEvent[] = [
    { e: "executed", results: [honest("n0", [0.7, 0.7, 0.7, 0.7, 0.7])] },
    { e: "gated", node: "n0", score: 0.7, problem: null, escapes: [] },
    { e: "proposed", parent: "n0", hypotheses: [h], problems: [], tokens: 0 },
  ];
  let s: TreeState = initialState(fakeConfig({ observeMs: OBSERVE_MS, wallMs: WALL_MS }), data.info, "t");
  for (const ev of events) s = step(s, ev).state;
  return { data, ctx, s };
}

Deno.test("the harness' recomputation of a module that never returns from fit is called hung, not over budget", async () => {
  const tmp = Deno.makeTempDirSync({ prefix: "arrow-tree-hang-" });
  try {
    const { ctx } = hangingRun(tmp);
    const scope = `${tmp}/nodes/n1`;
    Deno.mkdirSync(`${scope}/steps`, { recursive: true });
    Deno.writeTextFileSync(`${scope}/steps/001_hangs.ts`, HANGS);
    Deno.writeTextFileSync(
      `${scope}/artifact.json`,
      JSON.stringify({ format: ARTIFACT_FORMAT, steps: ["steps/001_hangs.ts"], model: {} }),
    );
    Deno.mkdirSync(`${tmp}/audit`);
    Deno.mkdirSync(`${tmp}/.arrow`);
    const t0 = performance.now();
    const out = await runChild(childCommand(ctx, "recompute", "n1", scope, `${tmp}/audit/r.jsonl`), {
      label: "rec",
      observeMs: OBSERVE_MS,
      wallMs: WALL_MS,
      journal: new ProcJournal(tmp),
      stdin: "nonce",
      progress: true,
      logDir: `${tmp}/logs`,
    });
    ok(out.hung, `hung, not ${JSON.stringify(out.overBudget)} (exit ${out.exit})`);
    equal(out.overBudget, null);
    ok(performance.now() - t0 < WALL_MS / 2, "stopped long before its wall budget");
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});

Deno.test("MergeGate.heldout() reports a module that never returns from fit as hung, with no score and no label read", async () => {
  const tmp = Deno.makeTempDirSync({ prefix: "arrow-tree-hang-" });
  try {
    const { data, ctx, s } = hangingRun(tmp);
    Deno.mkdirSync(`${tmp}/.arrow`, { recursive: true });
    const gate = new MergeGate(data, ctx, {
      observeMs: OBSERVE_MS,
      wallMs: WALL_MS,
      journal: new ProcJournal(tmp),
      logDir: `${tmp}/logs`,
    });
    const t0 = performance.now();
    const g = await gate.heldout(s, "n1");
    ok(g.hung, `hung: ${g.problem}`);
    equal(g.score, null);
    equal(gate.reads.heldout, 0);
    ok(String(g.problem).includes("silent"), String(g.problem));
    ok(performance.now() - t0 < WALL_MS / 2, "stopped long before its wall budget");
    // What the step function makes of it: covered in src/tree/step_test.ts (HUNG_RESTART, fused, next cycle).
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});

Deno.test("a fold's fit that outlasts the hang window is no hang: the fitting loops' signs of life reach the progress log", async () => {
  const tmp = Deno.makeTempDirSync({ prefix: "arrow-tree-alive-" });
  try {
    const { ctx } = hangingRun(tmp);
    const scope = `${tmp}/nodes/n1`;
    Deno.mkdirSync(scope, { recursive: true });
    // Library-free and deterministic: a GBDT whose every fold boosts many deep stages (about a second a
    // fold, against a hang window of K_FREEZE × 100 ms with no fold ending inside it).
    const model = { stages: 12000, maxDepth: 6, learningRate: 0.01 };
    Deno.writeTextFileSync(
      `${scope}/artifact.json`,
      JSON.stringify({ format: ARTIFACT_FORMAT, steps: [], model }),
    );
    Deno.mkdirSync(`${tmp}/audit`);
    Deno.mkdirSync(`${tmp}/.arrow`);
    const cmd = childCommand(ctx, "recompute", "n1", scope, `${tmp}/audit/r.jsonl`);
    const observeMs = 100;
    const out = await runChild(cmd, {
      label: "rec",
      observeMs,
      wallMs: WALL_MS,
      journal: new ProcJournal(tmp),
      stdin: "nonce",
      progress: true,
      logDir: `${tmp}/logs`,
    });
    equal(out.hung, null, `not hung (exit ${out.exit}): ${out.stderrTail.join("\n")}`);
    equal(out.exit, 0);
    const lines = Deno.readTextFileSync(cmd.progress!).trim().split("\n").map((l) => JSON.parse(l));
    const fitting = lines.filter((l) => l.phase === "fitting").length;
    ok(fitting >= 1, `signs of life while fitting: ${fitting}`);
    // Each of the five folds outlasted the window: what kept it alive is those lines, not folds ending.
    ok(out.wallMs / 5 > 2 * K_FREEZE * observeMs, `${Math.round(out.wallMs)} ms for five folds`);
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});
