/**
 * Fabricated tree-mode inputs for tests of the pure parts (step, selection, insights, ideators): a dataset
 * description, a config, executor observations — no process, no file.
 *
 * @module
 */
import type { SandboxContext } from "../src/tree/execute/sandbox.ts";
import { initialState } from "../src/tree/grow.ts";
import type {
  DatasetInfo,
  ExecResult,
  Hypothesis,
  TreeConfig,
  TreeEvent,
  TreeState,
} from "../src/tree/types.ts";
import { foldEvents } from "../src/tree/step.ts";

export function fakeDataset(): DatasetInfo {
  return {
    file: "/data/small.csv",
    rows: 160,
    dev: 96,
    heldout: 32,
    test: 32,
    folds: 5,
    target: "label",
    task: "binary",
    classes: ["no", "yes"],
    columns: [
      { name: "x1", kind: "numeric", missing: 0, distinct: 90, min: 0, nameLike: false, rare: 0 },
      { name: "x2", kind: "numeric", missing: 9, distinct: 80, min: 1, nameLike: false, rare: 0 },
      { name: "x3", kind: "numeric", missing: 4, distinct: 70, min: -4, nameLike: false, rare: 0 },
      { name: "group", kind: "categorical", missing: 3, distinct: 5, min: null, nameLike: false, rare: 1 },
      { name: "name", kind: "text", missing: 0, distinct: 96, min: null, nameLike: true, rare: 0 },
      { name: "label", kind: "categorical", missing: 0, distinct: 2, min: null, nameLike: false, rare: 0 },
    ],
    data_hash: "d".repeat(64),
    split_hash: "s".repeat(64),
  };
}

export function fakeConfig(over: Partial<TreeConfig> = {}): TreeConfig {
  return {
    metric: "accuracy",
    direction: "maximize",
    seed: 3,
    cycles: 4,
    executors: 2,
    ideator: "library",
    search: "tree",
    insights: true,
    heldoutBudget: 5,
    maxDepth: 8,
    observeMs: 1000,
    wallMs: 60_000,
    toolkit: "../../../src/tabular/mod.ts",
    ...over,
  };
}

export function fakeStart(over: Partial<TreeConfig> = {}): TreeState {
  return initialState(fakeConfig(over), fakeDataset(), "tree:fake");
}

/** An honest executor: exit 0, claims the mean of `folds`, and Arrow recomputes the same folds. */
export function ok(node: string, folds: number[], attempt = 1): ExecResult {
  return {
    node,
    attempt,
    exit: 0,
    signal: null,
    stderr_tail: [],
    hung: null,
    over_budget: null,
    escapes: [],
    lesson: null,
    claim: { score: folds.reduce((s, x) => s + x, 0) / folds.length, problem: null },
    observed_best: Math.max(...folds),
    artifact_changed: false,
    recomputed: { folds },
  };
}

export const folds = (base: number, delta = 0) =>
  [0, 1, 2, 3, 4].map((i) => base + delta + (i % 2 ? 0.01 : -0.01));

export function hyp(key: string, family: Hypothesis["family"] = "ratio"): Hypothesis {
  return {
    key,
    family,
    columns: ["x1", "x2"],
    params: {},
    text: `Hypothesis ${key}.`,
    step: {
      path: `steps/001_${family}.ts`,
      source: "export default { fit: () => null, transform: (_s, r) => r };",
    },
    model: {},
    source: "library",
    tokens: 0,
  };
}

/** Folds events from a fresh start, returning every intermediate state too. */
export function run(start: TreeState, events: TreeEvent[]) {
  return foldEvents([{ e: "init", state: start }, ...events]);
}

/** The sandbox context of a test's run directory `runDir`, whose data files `files` were written there. */
export function testSandbox(
  runDir: string,
  files: { dir: string; task: string; dev: string },
  csv: string,
  bwrap: string | null = null,
): SandboxContext {
  return {
    runDir,
    runsDir: null,
    dataDir: files.dir,
    taskFile: files.task,
    devFile: files.dev,
    userCsv: csv,
    bwrap,
  };
}

/** Baseline measured and admitted, then two hypotheses proposed under the root. */
export function opening(): TreeEvent[] {
  return [
    { e: "executed", results: [ok("n0", folds(0.8))] },
    { e: "gated", node: "n0", score: 0.8, problem: null, escapes: [] },
    { e: "proposed", parent: "n0", hypotheses: [hyp("a"), hyp("b", "log")], problems: [], tokens: 0 },
  ];
}
