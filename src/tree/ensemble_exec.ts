/**
 * An ensemble node's measurement, made by the coordinator from its members' kept out-of-fold dev predictions
 * (what a recomputation yields for any other node: per-fold scores and the per-row comparisons with the start
 * and the parent). An ensemble chosen on the very rows it is scored on looks better there than it will
 * anywhere else — its members and weights were picked to fit those rows' noise — and the end candidate is
 * chosen by exactly that comparison. So an ensemble that names its rule and the nodes it was chosen among
 * (`select`, `from`) is measured cross-fitted: for each dev fold the same rule chooses the pool, the members
 * and the weights on the other folds' rows alone, and the fold's predictions are that choice's blend. Its
 * artifact (what the gate, the refit and `predict` use) stays the choice made on every dev row. Dev rows only.
 *
 * @module
 */
import type { Prediction } from "../tabular/mod.ts";
import { score } from "../tabular/mod.ts";
import type { TreeData } from "./data.ts";
import {
  blend,
  ensemblePool,
  forwardCounts,
  lossView,
  pooled,
  pooledLabels,
  readOof,
  rowComparisons,
  selectionMetric,
  sizesOf,
} from "./ensemble.ts";
import { anchoredCounts, blendPool, endBar } from "./confirm.ts";
import { unobserved } from "./execute/predictions.ts";
import { lossFor, rowLosses } from "./gate/row_loss.ts";
import type { ExecResult, TreeNode, TreeState } from "./types.ts";

/** The rows `rows` (indices into the pooled rows) of a pooled prediction. */
function rowsOf(p: Prediction, rows: Int32Array): Prediction {
  const { k } = p;
  const values = new Float64Array(rows.length * k);
  rows.forEach((r, i) => values.set(p.values.subarray(r * k, (r + 1) * k), i * k));
  return { task: p.task, k, values };
}

/** The mean per-row gain of `cand` over `base` (losses, paired) and its z. */
function gainZ(base: Float64Array, cand: Float64Array): number {
  const n = base.length;
  let m = 0;
  for (let i = 0; i < n; i++) m += base[i]! - cand[i]!;
  m /= n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (base[i]! - cand[i]! - m) ** 2;
  const se = n > 1 ? Math.sqrt(ss / (n - 1) / n) : 0;
  return se > 0 ? m / se : 0;
}

interface Kept {
  node: TreeNode;
  folds: Prediction[];
  all: Prediction;
}

/**
 * Fold `f`'s predictions of the ensemble `rule` chooses on the pooled rows outside fold `f` from `universe`
 * (the start first for `anchored`): the chosen blend of the universe's fold-`f` predictions.
 */
function foldChoice(
  s: TreeState,
  rule: string,
  universe: readonly Kept[],
  y: Float64Array,
  offsets: readonly number[],
  f: number,
): Prediction {
  const n = y.length;
  const rows = Int32Array.from(
    { length: n - (offsets[f + 1]! - offsets[f]!) },
    (_, i) => (i < offsets[f]! ? i : i + offsets[f + 1]! - offsets[f]!),
  );
  const yR = Float64Array.from(rows, (r) => y[r]!);
  const metric = s.config.metric;
  let pool: Kept[], counts: number[];
  if (rule === "anchored") {
    const view = lossView(universe.map((u) => ({ u, oof: rowsOf(u.all, rows) })), yR, lossFor(metric));
    const base = rowLosses(metric, view.y, view.cands[0]!.oof);
    const partners = view.cands.slice(1).map((c) => ({
      id: c.u.node.id,
      c,
      z: gainZ(base, rowLosses(metric, view.y, c.oof)),
    }));
    const cands = [view.cands[0]!, ...blendPool(partners, (p) => p.z).map((p) => p.c)];
    pool = cands.map((c) => c.u);
    counts = anchoredCounts(cands, view.y, metric, s.dataset.heldout, endBar(s)).counts;
  } else {
    pool = ensemblePool(s, universe.map((u) => u.node), f).map((node) =>
      universe.find((u) => u.node === node)!
    );
    const by = selectionMetric(metric);
    const view = lossView(pool.map((u) => ({ oof: rowsOf(u.all, rows) })), yR, lossFor(by));
    counts = forwardCounts(view.cands, view.y, by).counts;
  }
  const total = counts.reduce((t, c) => t + c, 0);
  const used = pool.flatMap((u, i) => (counts[i] ? [{ p: u.folds[f]!, w: counts[i]! / total }] : []));
  return blend(used.map((u) => u.p), used.map((u) => u.w));
}

/**
 * The ensemble node `id`'s predictions per dev fold: cross-fitted when its hypothesis names its rule and the
 * nodes it was chosen among (fold f's from the choice made on the other folds' rows: no label of fold f
 * shapes them), else its members' kept predictions averaged with its weights; or the node whose kept
 * predictions are gone.
 */
export function ensemblePredictions(
  runDir: string,
  s: TreeState,
  id: string,
  data: TreeData,
): { preds: Prediction[] } | { lost: string } {
  const n = s.nodes[id]!;
  const { target, splits } = data.task;
  const sizes = sizesOf(data);
  const members = n.artifact.members ?? [];
  if (!members.length) return { lost: "(none)" };
  const rule = String(n.hypothesis?.params.select ?? "");
  const from = String(n.hypothesis?.params.from ?? "").split(",").filter((x) => x && s.nodes[x]?.dev);
  const crossFit = (rule === "forward" || rule === "anchored") && from.length > 0;
  const root = s.order[0]!;
  const needed = crossFit
    ? (rule === "anchored" ? [root, ...from.filter((x) => x !== root)] : from)
    : members.map((m) => m.node);
  const oofs = needed.map((node) => readOof(runDir, node, target, sizes));
  const lost = needed.find((_, i) => !oofs[i]);
  if (lost) return { lost };
  if (!crossFit) {
    const weights = members.map((m) => m.weight);
    return { preds: splits.folds.map((_, i) => blend(oofs.map((o) => o![i]!), weights)) };
  }
  const universe = needed.map((node, i) => ({
    node: s.nodes[node]!,
    folds: oofs[i]!,
    all: pooled(oofs[i]!),
  }));
  const offsets = [0];
  for (const size of sizes) offsets.push(offsets.at(-1)! + size);
  const y = pooledLabels(data);
  return { preds: splits.folds.map((_, f) => foldChoice(s, rule, universe, y, offsets, f)) };
}

/**
 * The ensemble node `id`'s measurement: its predictions per dev fold (`ensemblePredictions`) scored against
 * the fold's dev labels, with its per-row comparisons; or a failure naming the member whose kept
 * predictions are gone.
 */
export function ensembleExec(runDir: string, s: TreeState, id: string, data: TreeData): ExecResult {
  const n = s.nodes[id]!;
  const { target, splits, metric } = data.task;
  const base = unobserved(id, n.attempt, 0);
  const got = ensemblePredictions(runDir, s, id, data);
  if ("lost" in got) {
    return { ...base, exit: 3, lesson: `the out-of-fold predictions of member ${got.lost} are gone` };
  }
  const { preds } = got;
  const folds = splits.folds.map((f, i) =>
    score(metric, Float64Array.from(f.valid, (r) => target.y[r]!), preds[i]!)
  );
  const mean = folds.reduce((t, x) => t + x, 0) / folds.length;
  return {
    ...base,
    claim: { score: mean, problem: null },
    recomputed: { folds, ...rowComparisons(runDir, s, data, id, preds) },
  };
}
