/**
 * The fixed model of tree mode: a histogram gradient-boosted decision tree ensemble with Newton leaf values.
 * Losses: squared error (regression, starts at the mean), log-loss (binary, starts at the prior log-odds,
 * g = p − y, h = p(1 − p)) and softmax (multiclass, K trees per stage on g_k = p_k − [y = k],
 * h_k = p_k(1 − p_k), starts at the log class priors). Bins are fit on the training rows (gbdt_bins.ts); each
 * stage optionally draws a seeded subsample without replacement (mulberry32); missing values follow the
 * default direction learned at each split. Optionally a seeded share of features is drawn per tree
 * (`colsample`), and a seeded, class-stratified share of the training rows is held aside (`validationFraction`)
 * to measure the loss after every stage: with `earlyStoppingRounds` the fit stops once that loss has not
 * improved for so many stages and keeps the best stage count (recorded in the model's `validation`). Same
 * data, parameters and seed → the same model, byte for byte.
 *
 * @module
 */
import { alive } from "./alive.ts";
import type { Matrix } from "./encode.ts";
import { type Binned, binRows, binTraining } from "./gbdt_bins.ts";
import { holdOut, matrixRows } from "./gbdt_holdout.ts";
import { gradients, initialScores, meanLoss, softmax } from "./gbdt_loss.ts";
import { type GbdtParams, gbdtParams } from "./gbdt_params.ts";
import { addLeaves } from "./gbdt_kernels.ts";
import { PARALLEL_MIN_ROWS, ParallelFit } from "./gbdt_threads.ts";
import { type BinTree, growTree, predictBinned } from "./gbdt_tree.ts";
import type { Prediction } from "./metrics.ts";
import { mulberry32, subSeed } from "./prng.ts";
import type { Task } from "./target.ts";

export { DEFAULT_GBDT, type GbdtParams, gbdtParams } from "./gbdt_params.ts";
export { closeGbdtThreads } from "./gbdt_threads.ts";

/** How a fit runs, not what it fits: no effect on the model's bytes. */
export interface FitOptions {
  /** 2 splits the binning, large nodes' fills and partitions, and the gradient and score updates over two
   * threads (the fitting thread and a helper worker); default 1. */
  threads?: number;
}

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
  /** Present when rows were held aside: how many, the stages grown and kept, and the kept model's loss. */
  validation?: GbdtValidation;
}

export interface GbdtValidation {
  rows: number;
  stagesRun: number;
  stagesUsed: number;
  /** Mean loss on the held-aside rows (squared error or log-loss) after `stagesUsed` stages. */
  loss: number;
}

interface Held {
  X: Matrix;
  y: Float64Array;
}

/** Fits a model on the rows of X with labels y (values, or class indices 0..K−1). */
export function fitGbdt(
  X: Matrix,
  y: ArrayLike<number>,
  task: Task,
  classes: readonly string[],
  params: Partial<GbdtParams> = {},
  run: FitOptions = {},
): GbdtModel {
  const q = gbdtParams(params);
  const threads = run.threads ?? 1;
  if (threads !== 1 && threads !== 2) {
    throw new RangeError(`Cannot fit a GBDT on ${threads} threads: use 1 or 2`);
  }
  const n = X.nRows;
  if (y.length !== n || n === 0) throw new RangeError(`Cannot fit a GBDT: ${n} rows but ${y.length} labels`);
  const fraction = q.validationFraction ?? 0;
  if (fraction === 0) return boost(X, y, task, classes, q, null, threads);
  const { train, valid } = holdOut(y, task, fraction, q.seed);
  if (valid.length === 0) {
    throw new RangeError(
      `Cannot use GBDT validationFraction ${fraction}: it holds none of ${n} training rows aside`,
    );
  }
  const pick = (rows: Int32Array) => Float64Array.from(rows, (r) => y[r]!);
  return boost(matrixRows(X, train), pick(train), task, classes, q, {
    X: matrixRows(X, valid),
    y: pick(valid),
  }, threads);
}

function boost(
  X: Matrix,
  y: ArrayLike<number>,
  task: Task,
  classes: readonly string[],
  q: GbdtParams,
  held: Held | null,
  threads: number,
): GbdtModel {
  const n = X.nRows;
  const K = task === "multiclass" ? classes.length : 1;
  const init = initialScores(task, y, K);
  const m = Math.max(1, Math.round(q.subsample * n));
  // Two threads only pay on many rows.
  const par = threads === 2 && m >= PARALLEL_MIN_ROWS
    ? new ParallelFit(X, q.maxBins, y, task, K, m, Math.min(m, 2 ** q.maxDepth))
    : null;
  const { edges, data } = par ?? binTraining(X, q.maxBins);
  const F = par?.F ?? new Float64Array(n * K);
  for (let i = 0; i < n; i++) for (let k = 0; k < K; k++) F[i * K + k] = init[k]!;
  const gh = par?.gh ?? Array.from({ length: K }, () => new Float64Array(2 * n));
  const rng = mulberry32(subSeed(q.seed, "gbdt-subsample"));
  const all = Int32Array.from({ length: n }, (_, i) => i);
  const idx = par?.idx ?? new Int32Array(m);
  const pool: Float64Array[] = [];
  const trees: TreeJson[] = [];
  const drawFeatures = columnSampler(data.p, q);
  const opts = {
    ...q,
    rate: q.learningRate,
    unitHessian: task === "regression",
    features: null as Int32Array | null,
    parallel: par,
  };
  const watch = held ? validationWatch(held, edges, init, task, K) : null;
  let best = { stage: 0, loss: Infinity };
  let stage = 0;
  try {
    while (stage < q.stages) {
      if (par) par.gradients();
      else gradients(task, y, F, K, gh);
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
        opts.features = drawFeatures();
        const tree = growTree(data, gh[k]!, idx, opts, pool);
        // When every row was grown, its leaf is known from the partition: no traversal needed.
        const { leafStart, leafEnd, leafValue } = tree;
        if (m < n) { for (let i = 0; i < n; i++) F[i * K + k]! += predictBinned(tree, data, i); }
        else if (par) par.addLeaves(tree, k);
        else addLeaves(F, K, k, idx, leafStart, leafEnd, leafValue, leafStart.length, 0, n);
        watch?.add(tree, k);
        trees.push(toJson(tree, edges));
      }
      stage++;
      alive();
      if (!watch) continue;
      const loss = watch.loss();
      if (loss < best.loss) best = { stage, loss };
      if (q.earlyStoppingRounds && stage - best.stage >= q.earlyStoppingRounds) break;
    }
  } finally {
    par?.release();
  }
  const model: GbdtModel = {
    format: "arrow-gbdt/1",
    task,
    classes: [...classes],
    features: [...X.names],
    init,
    trees,
    params: q,
  };
  if (held) {
    // Without early stopping every stage is kept, and the loss reported is the last stage's.
    const used = q.earlyStoppingRounds ? best.stage : stage;
    trees.length = used * K;
    const loss = q.earlyStoppingRounds ? best.loss : watch!.loss();
    model.validation = { rows: held.X.nRows, stagesRun: stage, stagesUsed: used, loss };
  }
  return model;
}

/** Per tree, the ascending features it may use (a seeded draw of round(colsample · p), at least 1), or null. */
function columnSampler(p: number, q: GbdtParams): () => Int32Array | null {
  const share = q.colsample ?? 1;
  if (share >= 1) return () => null;
  const rng = mulberry32(subSeed(q.seed, "gbdt-colsample"));
  const take = Math.max(1, Math.round(share * p));
  const perm = Int32Array.from({ length: p }, (_, i) => i);
  return () => {
    for (let i = 0; i < take; i++) {
      const j = i + Math.floor(rng() * (p - i));
      [perm[i], perm[j]] = [perm[j]!, perm[i]!];
    }
    return perm.slice(0, take).sort();
  };
}

/** Raw scores of the held-aside rows, kept up to date tree by tree, and their mean loss. */
function validationWatch(held: Held, edges: Float64Array[], init: number[], task: Task, K: number) {
  const data: Binned = binRows(held.X, edges);
  const nv = held.X.nRows;
  const F = new Float64Array(nv * K);
  for (let i = 0; i < nv; i++) for (let k = 0; k < K; k++) F[i * K + k] = init[k]!;
  return {
    add(tree: BinTree, k: number) {
      for (let i = 0; i < nv; i++) F[i * K + k]! += predictBinned(tree, data, i);
    },
    loss: () => meanLoss(task, held.y, F, K),
  };
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
