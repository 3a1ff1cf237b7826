/**
 * The fixed model of tree mode: a histogram gradient-boosted decision tree ensemble with Newton leaf values.
 * Losses: squared error (regression, starts at the mean), log-loss (binary, starts at the prior log-odds,
 * g = p − y, h = p(1 − p)) and softmax (multiclass, K trees per stage on g_k = p_k − [y = k],
 * h_k = p_k(1 − p_k), starts at the log class priors). Bins are fit on the training rows (gbdt_bins.ts); each
 * stage optionally draws a seeded subsample without replacement (mulberry32); missing values follow the
 * default direction learned at each split. Same data, parameters and seed → the same model, byte for byte.
 *
 * @module
 */
import type { Matrix } from "./encode.ts";
import { binRows, fitEdges } from "./gbdt_bins.ts";
import { type BinTree, growTree, predictBinned } from "./gbdt_tree.ts";
import type { Prediction } from "./metrics.ts";
import { mulberry32, subSeed } from "./prng.ts";
import type { Task } from "./target.ts";

export interface GbdtParams {
  /** Boosting stages (multiclass grows K trees per stage). */
  stages: number;
  learningRate: number;
  maxDepth: number;
  minSamplesLeaf: number;
  /** Share of rows drawn (without replacement) for each stage, in (0, 1]. */
  subsample: number;
  /** L2 penalty λ on leaf values. */
  l2: number;
  /** Smallest hessian sum per child. */
  minChildWeight: number;
  /** Histogram bins per feature, 2–255. */
  maxBins: number;
  seed: number;
}

export const DEFAULT_GBDT: Readonly<GbdtParams> = {
  stages: 100,
  learningRate: 0.1,
  maxDepth: 3,
  minSamplesLeaf: 1,
  subsample: 1,
  l2: 1,
  minChildWeight: 1e-3,
  maxBins: 255,
  seed: 0,
};

/** A tree in model JSON: `feature` −1 marks a leaf; go left when x ≤ threshold, or by `missingLeft` on NaN. */
export interface TreeJson {
  feature: number[];
  threshold: number[];
  missingLeft: number[];
  left: number[];
  right: number[];
  value: number[];
}

export interface GbdtModel {
  format: "arrow-gbdt/1";
  task: Task;
  classes: string[];
  features: string[];
  /** Starting raw score per output (1, or K for multiclass). */
  init: number[];
  /** Stage-major: tree t adds to output t mod K. */
  trees: TreeJson[];
  params: GbdtParams;
}

/** Checks parameters, filling defaults, with "Cannot …" messages naming the bad value. */
export function gbdtParams(p: Partial<GbdtParams> = {}): GbdtParams {
  const q = { ...DEFAULT_GBDT, ...p };
  const check = (ok: boolean, name: string, want: string) => {
    if (!ok) {
      throw new RangeError(`Cannot use GBDT ${name} ${JSON.stringify(q[name as keyof GbdtParams])}: ${want}`);
    }
  };
  check(Number.isInteger(q.stages) && q.stages >= 1 && q.stages <= 100_000, "stages", "an integer 1–100000");
  check(q.learningRate > 0 && q.learningRate <= 10, "learningRate", "a number in (0, 10]");
  check(Number.isInteger(q.maxDepth) && q.maxDepth >= 1 && q.maxDepth <= 20, "maxDepth", "an integer 1–20");
  check(Number.isInteger(q.minSamplesLeaf) && q.minSamplesLeaf >= 1, "minSamplesLeaf", "an integer ≥ 1");
  check(q.subsample > 0 && q.subsample <= 1, "subsample", "a number in (0, 1]");
  check(q.l2 >= 0 && Number.isFinite(q.l2), "l2", "a finite number ≥ 0");
  check(q.minChildWeight >= 0 && Number.isFinite(q.minChildWeight), "minChildWeight", "a finite number ≥ 0");
  check(Number.isInteger(q.maxBins) && q.maxBins >= 2 && q.maxBins <= 255, "maxBins", "an integer 2–255");
  check(Number.isInteger(q.seed), "seed", "an integer");
  return q;
}

/** Fits a model on the rows of X with labels y (values, or class indices 0..K−1). */
export function fitGbdt(
  X: Matrix,
  y: ArrayLike<number>,
  task: Task,
  classes: readonly string[],
  params: Partial<GbdtParams> = {},
): GbdtModel {
  const q = gbdtParams(params);
  const n = X.nRows;
  if (y.length !== n || n === 0) throw new RangeError(`Cannot fit a GBDT: ${n} rows but ${y.length} labels`);
  const K = task === "multiclass" ? classes.length : 1;
  const edges = fitEdges(X, q.maxBins);
  const data = binRows(X, edges);
  const init = initialScores(task, y, K);
  const F = new Float64Array(n * K);
  for (let i = 0; i < n; i++) for (let k = 0; k < K; k++) F[i * K + k] = init[k]!;
  const grad = Array.from({ length: K }, () => new Float64Array(n));
  const hess = Array.from({ length: K }, () => new Float64Array(n));
  const rng = mulberry32(subSeed(q.seed, "gbdt-subsample"));
  const all = Int32Array.from({ length: n }, (_, i) => i);
  const m = Math.max(1, Math.round(q.subsample * n));
  const idx = new Int32Array(m);
  const pool: Float64Array[] = [];
  const trees: TreeJson[] = [];
  const opts = { ...q, rate: q.learningRate, unitHessian: task === "regression" };
  for (let stage = 0; stage < q.stages; stage++) {
    gradients(task, y, F, K, grad, hess);
    if (m < n) {
      for (let i = 0; i < m; i++) {
        const j = i + Math.floor(rng() * (n - i));
        [all[i], all[j]] = [all[j]!, all[i]!];
      }
      idx.set(all.subarray(0, m));
      idx.sort();
    }
    for (let k = 0; k < K; k++) {
      if (m === n) idx.set(all);
      const tree = growTree(data, grad[k]!, hess[k]!, idx, opts, pool);
      if (m === n) {
        // Every row was grown: its leaf is known from the partition, no traversal needed.
        tree.leafStart.forEach((start, l) => {
          const v = tree.leafValue[l]!, end = tree.leafEnd[l]!;
          for (let t = start; t < end; t++) F[idx[t]! * K + k]! += v;
        });
      } else for (let i = 0; i < n; i++) F[i * K + k]! += predictBinned(tree, data, i);
      trees.push(toJson(tree, edges));
    }
  }
  return {
    format: "arrow-gbdt/1",
    task,
    classes: [...classes],
    features: [...X.names],
    init,
    trees,
    params: q,
  };
}

function initialScores(task: Task, y: ArrayLike<number>, K: number): number[] {
  const n = y.length;
  if (task === "regression") {
    let s = 0;
    for (let i = 0; i < n; i++) s += y[i]!;
    return [s / n];
  }
  const counts = new Float64Array(Math.max(K, 2));
  for (let i = 0; i < n; i++) counts[y[i]!]!++;
  const clip = (p: number) => Math.min(1 - 1e-15, Math.max(1e-15, p));
  if (task === "binary") {
    const p = clip(counts[1]! / n);
    return [Math.log(p / (1 - p))];
  }
  return Array.from({ length: K }, (_, k) => Math.log(clip(counts[k]! / n)));
}

function gradients(
  task: Task,
  y: ArrayLike<number>,
  F: Float64Array,
  K: number,
  grad: Float64Array[],
  hess: Float64Array[],
) {
  const n = y.length;
  if (task === "regression") {
    const g = grad[0]!, h = hess[0]!;
    for (let i = 0; i < n; i++) g[i] = F[i]! - y[i]!;
    h.fill(1);
  } else if (task === "binary") {
    const g = grad[0]!, h = hess[0]!;
    for (let i = 0; i < n; i++) {
      const p = 1 / (1 + Math.exp(-F[i]!));
      g[i] = p - y[i]!;
      h[i] = Math.max(p * (1 - p), 1e-16);
    }
  } else {
    const p = new Float64Array(K);
    for (let i = 0; i < n; i++) {
      softmax(F, i * K, K, p, 0);
      for (let k = 0; k < K; k++) {
        grad[k]![i] = p[k]! - (y[i] === k ? 1 : 0);
        hess[k]![i] = Math.max(p[k]! * (1 - p[k]!), 1e-16);
      }
    }
  }
}

function softmax(F: ArrayLike<number>, from: number, K: number, out: Float64Array, to: number): void {
  let max = -Infinity;
  for (let k = 0; k < K; k++) max = Math.max(max, F[from + k]!);
  let sum = 0;
  for (let k = 0; k < K; k++) sum += out[to + k] = Math.exp(F[from + k]! - max);
  for (let k = 0; k < K; k++) out[to + k]! /= sum;
}

function toJson(t: BinTree, edges: Float64Array[]): TreeJson {
  return {
    feature: t.feature,
    threshold: t.feature.map((f, i) => (f < 0 ? 0 : edges[f]![t.bin[i]!] ?? Number.MAX_VALUE)),
    missingLeft: t.missingLeft.map((b) => (b ? 1 : 0)),
    left: t.left,
    right: t.right,
    value: t.value,
  };
}

/** Predicts the rows of X (columns named as at fit time, in the same order). */
export function predictGbdt(model: GbdtModel, X: Matrix): Prediction {
  if (X.names.length !== model.features.length || X.names.some((nm, j) => nm !== model.features[j])) {
    throw new RangeError(
      `Cannot predict: the model was fit on ${model.features.length} features, the matrix has ${X.names.length} differently named or ordered`,
    );
  }
  const K = model.init.length, n = X.nRows;
  const F = new Float64Array(n * K);
  for (let i = 0; i < n; i++) for (let k = 0; k < K; k++) F[i * K + k] = model.init[k]!;
  model.trees.forEach((t, ti) => {
    const k = ti % K;
    for (let i = 0; i < n; i++) {
      let j = 0;
      while (t.feature[j]! >= 0) {
        const x = X.columns[t.feature[j]!]![i]!;
        const left = Number.isNaN(x) ? t.missingLeft[j] === 1 : x <= t.threshold[j]!;
        j = left ? t.left[j]! : t.right[j]!;
      }
      F[i * K + k]! += t.value[j]!;
    }
  });
  if (model.task === "regression") return { task: "regression", k: 1, values: F };
  if (model.task === "binary") return { task: "binary", k: 1, values: F.map((f) => 1 / (1 + Math.exp(-f))) };
  const values = new Float64Array(n * K);
  for (let i = 0; i < n; i++) softmax(F, i * K, K, values, i * K);
  return { task: "multiclass", k: K, values };
}
