/**
 * Scores of predictions against labels, each with its direction, and the default metric per task.
 *
 * - accuracy: share of rows whose most probable class is the label (binary: p ≥ 0.5 is class 1).
 * - auc: area under the ROC curve by the rank-sum (Mann–Whitney) formula with average ranks, so tied scores
 *   count one half; multiclass is the unweighted mean of one-vs-rest AUCs over classes that have both
 *   positives and negatives among the rows; NaN when no class has both.
 * - logloss: mean −ln p(label), with p clipped to [1e-15, 1 − 1e-15].
 * - r2: 1 − SS_res / SS_tot; when SS_tot is 0, 1 for a perfect prediction and 0 otherwise.
 * - rmse, mae: root mean squared and mean absolute error.
 *
 * Defaults: accuracy for binary and multiclass (the seed's headline measure), r2 for regression — both free of
 * the target's scale, which matters because the merge gate's ACCEPT_EPS is an absolute difference.
 *
 * @module
 */
import type { Task } from "./target.ts";

export type MetricName = "accuracy" | "auc" | "logloss" | "r2" | "rmse" | "mae";
export type Direction = "higher" | "lower";

/** Model output: 1 value per row (regression value, or P(class 1) for binary) or K class probabilities. */
export interface Prediction {
  task: Task;
  /** Values per row: 1, or K for multiclass (then `values` is row-major n × K). */
  k: number;
  values: Float64Array;
}

export const METRICS: Record<MetricName, { direction: Direction; tasks: readonly Task[] }> = {
  accuracy: { direction: "higher", tasks: ["binary", "multiclass"] },
  auc: { direction: "higher", tasks: ["binary", "multiclass"] },
  logloss: { direction: "lower", tasks: ["binary", "multiclass"] },
  r2: { direction: "higher", tasks: ["regression"] },
  rmse: { direction: "lower", tasks: ["regression"] },
  mae: { direction: "lower", tasks: ["regression"] },
};

export function defaultMetric(task: Task): MetricName {
  return task === "regression" ? "r2" : "accuracy";
}

/** True when `a` is a better score than `b` under `metric`. */
export function better(metric: MetricName, a: number, b: number): boolean {
  return METRICS[metric].direction === "higher" ? a > b : a < b;
}

/** Scores `pred` against `y` (values or class indices, one per prediction row). */
export function score(metric: MetricName, y: ArrayLike<number>, pred: Prediction): number {
  if (!METRICS[metric].tasks.includes(pred.task)) {
    throw new RangeError(`Cannot score ${pred.task} predictions with ${JSON.stringify(metric)}`);
  }
  const n = y.length;
  if (n === 0 || pred.values.length !== n * pred.k) {
    throw new RangeError(`Cannot score: ${n} labels for ${pred.values.length / pred.k} predictions`);
  }
  switch (metric) {
    case "accuracy":
      return accuracy(y, pred);
    case "auc":
      return pred.k === 1 ? aucBinary(y, pred.values) : aucOneVsRest(y, pred);
    case "logloss":
      return logloss(y, pred);
    case "r2":
      return r2(y, pred.values);
    case "rmse":
      return Math.sqrt(meanOf(n, (i) => (y[i]! - pred.values[i]!) ** 2));
    case "mae":
      return meanOf(n, (i) => Math.abs(y[i]! - pred.values[i]!));
  }
}

function meanOf(n: number, f: (i: number) => number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += f(i);
  return s / n;
}

/** The most probable class of row i (first on ties). */
export function argmaxRow(pred: Prediction, i: number): number {
  if (pred.k === 1) return pred.values[i]! >= 0.5 ? 1 : 0;
  let best = 0;
  for (let c = 1; c < pred.k; c++) {
    if (pred.values[i * pred.k + c]! > pred.values[i * pred.k + best]!) best = c;
  }
  return best;
}

function accuracy(y: ArrayLike<number>, pred: Prediction): number {
  return meanOf(y.length, (i) => (argmaxRow(pred, i) === y[i] ? 1 : 0));
}

/** Binary AUC of `scores` for labels `pos(i)` by average ranks; NaN when one class is absent. Computed as
 * Mann–Whitney's U (each positive counts the negatives below it, and half of those tied with it) from the
 * two classes' scores sorted apart (typed-array sorts, no comparator): U is a whole or half number, exact in
 * a double, so this equals the rank-sum formula bit for bit. */
export function aucBinary(y: ArrayLike<number>, scores: ArrayLike<number>, positive = 1): number {
  const n = y.length;
  let nPos = 0;
  for (let i = 0; i < n; i++) if (y[i] === positive) nPos++;
  const nNeg = n - nPos;
  if (nPos === 0 || nNeg === 0) return NaN;
  const pos = new Float64Array(nPos), neg = new Float64Array(nNeg);
  for (let i = 0, p = 0, q = 0; i < n; i++) {
    if (y[i] === positive) pos[p++] = scores[i]!;
    else neg[q++] = scores[i]!;
  }
  pos.sort();
  neg.sort();
  let u = 0;
  for (let i = 0, below = 0; i < nPos;) {
    const v = pos[i]!;
    let j = i;
    while (j < nPos && pos[j] === v) j++;
    while (below < nNeg && neg[below]! < v) below++;
    let tied = below;
    while (tied < nNeg && neg[tied] === v) tied++;
    u += (j - i) * (below + (tied - below) / 2);
    i = j;
  }
  return u / (nPos * nNeg);
}

function aucOneVsRest(y: ArrayLike<number>, pred: Prediction): number {
  let sum = 0, used = 0;
  const col = new Float64Array(y.length);
  for (let c = 0; c < pred.k; c++) {
    for (let i = 0; i < y.length; i++) col[i] = pred.values[i * pred.k + c]!;
    const a = aucBinary(y, col, c);
    if (!Number.isNaN(a)) [sum, used] = [sum + a, used + 1];
  }
  return used ? sum / used : NaN;
}

const EPS = 1e-15;

function logloss(y: ArrayLike<number>, pred: Prediction): number {
  return meanOf(y.length, (i) => {
    const p = pred.k === 1
      ? (y[i] === 1 ? pred.values[i]! : 1 - pred.values[i]!)
      : pred.values[i * pred.k + y[i]!]!;
    return -Math.log(Math.min(1 - EPS, Math.max(EPS, p)));
  });
}

function r2(y: ArrayLike<number>, p: ArrayLike<number>): number {
  const n = y.length;
  const mean = meanOf(n, (i) => y[i]!);
  let res = 0, tot = 0;
  for (let i = 0; i < n; i++) [res, tot] = [res + (y[i]! - p[i]!) ** 2, tot + (y[i]! - mean) ** 2];
  if (tot === 0) return res === 0 ? 1 : 0;
  return 1 - res / tot;
}
