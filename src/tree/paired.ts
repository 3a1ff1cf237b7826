/**
 * The merge gate's noise test: a paired, seeded bootstrap of a candidate's held-out predictions against the
 * incumbent's on the same rows. Each resample draws the held-out rows with replacement (within each class
 * for a classification target, so a resample of a small part keeps both classes and AUC stays defined),
 * scores both prediction sets on it, and keeps the difference; the spread of those differences is the
 * standard error of the held-out gain. It works for every metric alike, including the ones that do not
 * decompose into per-row losses (AUC, R²); for those that do, it agrees with the per-row paired standard
 * error. The step function admits a candidate only when its gain is at least Z_GATE standard errors.
 *
 * @module
 */
import { mulberry32, subSeed } from "../tabular/prng.ts";
import { type MetricName, type Prediction, score, type Task } from "../tabular/mod.ts";

/** Resamples per comparison: the standard error's own error is about 1/√(2B) ≈ 2 % of it. */
export const BOOTSTRAP_RESAMPLES = 1000;

/** What the gate measured, in the metric's units, positive = the candidate is better. */
export interface PairedGain {
  /** The gain on the whole held-out part. */
  gain: number;
  /** Standard deviation of the gain over the resamples: its standard error. */
  se: number;
  /** Held-out rows compared. */
  n: number;
  /** Resamples that could be scored (a resample whose metric is undefined is skipped). */
  b: number;
}

function subset(pred: Prediction, idx: Int32Array): Prediction {
  const { k } = pred;
  const values = new Float64Array(idx.length * k);
  for (let i = 0; i < idx.length; i++) {
    for (let j = 0; j < k; j++) values[i * k + j] = pred.values[idx[i]! * k + j]!;
  }
  return { task: pred.task, k, values };
}

/** Row groups a resample draws within: one per class for classification, all rows for regression. */
function strata(task: Task, y: Float64Array): number[][] {
  if (task === "regression") return [Array.from(y, (_, i) => i)];
  const by = new Map<number, number[]>();
  y.forEach((c, i) => by.set(c, [...(by.get(c) ?? []), i]));
  return [...by.keys()].sort((a, b) => a - b).map((c) => by.get(c)!);
}

/**
 * The candidate's held-out gain over the incumbent and its bootstrap standard error. `sign` is +1 when the
 * metric is maximised; `seed` fixes the resamples (the same rows are drawn for both prediction sets).
 */
export function pairedBootstrap(
  metric: MetricName,
  y: Float64Array,
  candidate: Prediction,
  incumbent: Prediction,
  sign: 1 | -1,
  seed: number,
  resamples = BOOTSTRAP_RESAMPLES,
): PairedGain {
  const n = y.length;
  const gain = sign * (score(metric, y, candidate) - score(metric, y, incumbent));
  const groups = strata(candidate.task, y);
  const rng = mulberry32(subSeed(seed, "paired-bootstrap"));
  const diffs: number[] = [];
  const idx = new Int32Array(n);
  const ys = new Float64Array(n);
  for (let b = 0; b < resamples; b++) {
    let at = 0;
    for (const g of groups) {
      for (let i = 0; i < g.length; i++) idx[at++] = g[Math.floor(rng() * g.length)]!;
    }
    for (let i = 0; i < n; i++) ys[i] = y[idx[i]!]!;
    const d = sign * (score(metric, ys, subset(candidate, idx)) - score(metric, ys, subset(incumbent, idx)));
    if (Number.isFinite(d)) diffs.push(d);
  }
  const mean = diffs.reduce((s, x) => s + x, 0) / Math.max(1, diffs.length);
  const v = diffs.length > 1 ? diffs.reduce((s, x) => s + (x - mean) ** 2, 0) / (diffs.length - 1) : NaN;
  return { gain, se: Math.sqrt(v), n, b: diffs.length };
}
