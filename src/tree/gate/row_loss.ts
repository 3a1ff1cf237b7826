/**
 * Evidence with power: a candidate compared with a reference row by row on the continuous form of the
 * metric (log-loss for accuracy, AUC and log-loss; squared error for R² and RMSE; absolute error for MAE),
 * as a paired z statistic on the per-row loss differences, and the critical values that keep a run's false
 * admissions under a family-wise level (Bonferroni over the run's planned held-out queries) and a no-effect
 * change's helped/hurt label rare (two-sided, Student's t on a few fold deltas).
 *
 * Why per-row loss: a 0/1 accuracy difference on a few hundred rows moves in steps of 1/n and its noise
 * swamps real gains of a point or two; the probabilities behind it move on every row, so the same rows carry
 * far more evidence about which model is better.
 *
 * @module
 */
import type { MetricName, Prediction } from "../../tabular/mod.ts";

/** The per-row loss a metric is compared on. */
export type LossName = "logloss" | "squared" | "absolute";

/** What a paired per-row comparison measured; gain > 0 means the candidate's mean loss is lower. */
export interface LossGain {
  loss: LossName;
  /** Mean over rows of (reference loss − candidate loss). */
  gain: number;
  /** Standard error of that mean (sample standard deviation of the differences over √n). */
  se: number;
  n: number;
  /** gain / se (±Infinity when every difference is the same non-zero number, 0 when all are zero). */
  z: number;
  /**
   * Wilcoxon's signed-rank statistic of the same differences as a z (normal approximation, ties averaged,
   * zero differences dropped): whether the candidate's loss is lower on most rows, which a few rows of
   * confident mistakes do not swamp the way they swamp the mean's standard error. A description, never a
   * decision: the metrics are means, and a candidate better on most rows may still lose on average (the gate
   * decides on `z`). Absent in comparisons recorded before it was measured.
   */
  rank_z?: number;
}

/** A comparison rounded for the record (the state is JSON; its bytes must not hang on a last digit). */
export function roundedGain(g: LossGain): LossGain {
  const r = (x: number) => (Number.isFinite(x) ? Number(x.toPrecision(6)) : x);
  return {
    ...g,
    gain: r(g.gain),
    se: r(g.se),
    z: r(g.z),
    ...(g.rank_z !== undefined ? { rank_z: r(g.rank_z) } : {}),
  };
}

/** Wilcoxon's signed-rank z of `d` (positive: the differences lean positive); 0 with no non-zero one. */
export function signedRankZ(d: ArrayLike<number>): number {
  // The positive and the negative differences' sizes, each sorted apart (typed-array sorts, no comparator),
  // then walked together in rank order: a tie group of `t` sizes takes ranks r+1 … r+t, each their mean.
  let np = 0, nn = 0;
  for (let i = 0; i < d.length; i++) {
    const x = d[i]!;
    if (x > 0 && Number.isFinite(x)) np++;
    else if (x < 0 && Number.isFinite(x)) nn++;
  }
  const n = np + nn;
  if (!n) return 0;
  const pos = new Float64Array(np), neg = new Float64Array(nn);
  for (let i = 0, p = 0, q = 0; i < d.length; i++) {
    const x = d[i]!;
    if (x > 0 && Number.isFinite(x)) pos[p++] = x;
    else if (x < 0 && Number.isFinite(x)) neg[q++] = -x;
  }
  pos.sort();
  neg.sort();
  let wPlus = 0, tie = 0, r = 0;
  for (let i = 0, j = 0; i < np || j < nn;) {
    const v = i < np && (j >= nn || pos[i]! <= neg[j]!) ? pos[i]! : neg[j]!;
    let a = 0, b = 0;
    while (i < np && pos[i] === v) (i++), a++;
    while (j < nn && neg[j] === v) (j++), b++;
    const t = a + b;
    wPlus += a * (r + (t + 1) / 2);
    tie += t ** 3 - t;
    r += t;
  }
  const mean = (n * (n + 1)) / 4;
  const variance = (n * (n + 1) * (2 * n + 1)) / 24 - tie / 48;
  return variance > 0 ? (wPlus - mean) / Math.sqrt(variance) : 0;
}

/** The family-wise false-admit level of one run's merge gate, across all of its held-out queries. */
export const GATE_ALPHA = 0.05;
/**
 * What the gate's row tests spend of GATE_ALPHA. A test over held-out rows sees the rows' noise but not the
 * fitted models' own: two fits of one recipe that differ only by a seed differ on the population too, so a
 * seed-only candidate passes a one-sided row test at level α a little more often than α (measured by the
 * A/A, `bench:tree --aa`: 5.8 % of single comparisons when the whole 0.05 was spent, 3.9 % of 1,000 at
 * 0.03). The gate spends 0.03 and leaves the rest for that randomness; the A/A is measured at this spend.
 */
export const GATE_SPEND = 0.03;
/** Two-sided level of a dev helped/hurt label: a change with no effect is labelled at most this often. */
export const LABEL_ALPHA = 0.05;

const EPS = 1e-15;

export function lossFor(metric: MetricName): LossName {
  if (metric === "mae") return "absolute";
  if (metric === "r2" || metric === "rmse") return "squared";
  return "logloss";
}

/** Every row's loss under `lossFor(metric)`; `y` holds values or class indices. */
export function rowLosses(metric: MetricName, y: ArrayLike<number>, p: Prediction): Float64Array {
  const n = y.length;
  if (p.values.length !== n * p.k) {
    throw new RangeError(`Cannot compare row losses: ${n} labels for ${p.values.length / p.k} predictions`);
  }
  const out = new Float64Array(n);
  const loss = lossFor(metric);
  for (let i = 0; i < n; i++) {
    const yi = y[i]!;
    if (loss === "squared") out[i] = (yi - p.values[i]!) ** 2;
    else if (loss === "absolute") out[i] = Math.abs(yi - p.values[i]!);
    else {
      const q = p.k === 1 ? (yi === 1 ? p.values[i]! : 1 - p.values[i]!) : p.values[i * p.k + yi]!;
      out[i] = -Math.log(Math.min(1 - EPS, Math.max(EPS, q)));
    }
  }
  return out;
}

/** The paired comparison of two per-row loss vectors over the same rows (reference minus candidate). */
export function pairedLossOf(loss: LossName, cand: Float64Array, ref: Float64Array): LossGain {
  const n = cand.length;
  if (ref.length !== n) throw new RangeError(`Cannot pair ${n} row losses with ${ref.length}`);
  let mean = 0;
  for (let i = 0; i < n; i++) mean += ref[i]! - cand[i]!;
  mean = n ? mean / n : 0;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (ref[i]! - cand[i]! - mean) ** 2;
  const se = n > 1 ? Math.sqrt(ss / (n - 1) / n) : NaN;
  const z = se > 0 ? mean / se : mean === 0 ? 0 : mean > 0 ? Infinity : -Infinity;
  const d = new Float64Array(n);
  for (let i = 0; i < n; i++) d[i] = ref[i]! - cand[i]!;
  return { loss, gain: mean, se, n, z, rank_z: signedRankZ(d) };
}

/** A candidate's predictions against a reference's on the same rows, per-row loss, paired. */
export function pairedLoss(
  metric: MetricName,
  y: ArrayLike<number>,
  candidate: Prediction,
  reference: Prediction,
): LossGain {
  return pairedLossOf(lossFor(metric), rowLosses(metric, y, candidate), rowLosses(metric, y, reference));
}

/**
 * The standard normal quantile (Acklam's rational approximation, relative error below 1.2e-9, which is far
 * finer than any decision here needs).
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) {
    if (p === 0) return -Infinity;
    if (p === 1) return Infinity;
    throw new RangeError(`Cannot take the normal quantile of ${p}: want a probability in [0, 1]`);
  }
  const a = [
    -39.69683028665376,
    220.9460984245205,
    -275.9285104469687,
    138.357751867269,
    -30.66479806614716,
    2.506628274631,
  ];
  const b = [
    -54.47609879822406,
    161.5858368580409,
    -155.6989798598866,
    66.80131188771972,
    -13.28068155288572,
  ];
  const c = [
    -0.007784894002430293,
    -0.3223964580411365,
    -2.400758277161838,
    -2.549732539343734,
    4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const lo = 0.02425;
  if (p < lo) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  if (p > 1 - lo) return -normalQuantile(1 - p);
  const q = p - 0.5, r = q * q;
  return (((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q /
    (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
}

/** The standard normal distribution function (Abramowitz and Stegun 7.1.26 for erf, absolute error below
 * 1.5e-7: ample for weighing candidates, never used for a decision's bar). */
export function normalCdf(x: number): number {
  if (x === Infinity) return 1;
  if (x === -Infinity) return 0;
  const t = 1 / (1 + 0.3275911 * Math.abs(x) / Math.SQRT2);
  const poly = t *
    (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-(x * x) / 2);
  return x >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/**
 * The one-sided bar a held-out query's paired z must reach so that a run of `queries` comparisons admits a
 * no-effect candidate with probability at most `alpha` in all (Bonferroni: each query spends alpha/queries,
 * which holds however the queries depend on each other and in whatever order they come).
 */
export function gateZ(queries: number, alpha = GATE_SPEND): number {
  return normalQuantile(1 - alpha / Math.max(1, Math.floor(queries)));
}

/** Two-sided 97.5 % quantiles of Student's t for 1–10 degrees of freedom (standard tables). */
const T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228];

/**
 * Student's t quantile for a two-sided level `alpha` and `df` degrees of freedom: the table at 5 %, else
 * the Cornish–Fisher expansion around the normal quantile (within 0.5 % from 5 degrees of freedom up).
 */
export function tQuantile(df: number, alpha = LABEL_ALPHA): number {
  if (df < 1) return Infinity;
  if (alpha === 0.05 && df <= T975.length) return T975[Math.floor(df) - 1]!;
  const z = normalQuantile(1 - alpha / 2);
  const z3 = z ** 3, z5 = z ** 5, z7 = z ** 7;
  return z + (z3 + z) / (4 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96 * df ** 2) +
    (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df ** 3);
}
