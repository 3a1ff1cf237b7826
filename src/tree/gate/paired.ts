/**
 * The merge gate's noise test: a paired, seeded bootstrap of a candidate's held-out predictions against the
 * incumbent's on the same rows. Each resample draws the held-out rows with replacement (within each class
 * for a classification target, so a resample of a small part keeps both classes and AUC stays defined),
 * scores both prediction sets on it, and keeps the difference; the spread of those differences is the
 * standard error of the held-out gain. It works for every metric alike, including the ones that do not
 * decompose into per-row losses (AUC, R²); for those that do, it agrees with the per-row paired standard
 * error. The step function admits a candidate only when its gain is at least Z_GATE standard errors.
 *
 * Cost grows with the part: up to 1,000 rows a comparison draws 1,000 resamples; above, an AUC comparison is
 * linearized (each row's DeLong structural components, their variance within each class — the quantity the
 * class-stratified bootstrap converges to, in O(n log n)), and other metrics draw about a million rows.
 *
 * @module
 */
import { mulberry32, subSeed } from "../../tabular/prng.ts";
import { type MetricName, type Prediction, score, type Task } from "../../tabular/mod.ts";
import type { LossGain } from "./row_loss.ts";

/** Resamples per comparison: the standard error's own error is about 1/√(2B) ≈ 2 % of it. */
export const BOOTSTRAP_RESAMPLES = 1000;
/** Fewest resamples for a large held-out part (the standard error's own error ≈ 4.5 %). */
export const BOOTSTRAP_MIN_RESAMPLES = 250;

/**
 * Resamples for `n` held-out rows: BOOTSTRAP_RESAMPLES up to 1,000 rows, then fewer so a comparison costs
 * about a million row draws (≈ 30 ms) however large the part — never fewer than BOOTSTRAP_MIN_RESAMPLES. A
 * large part's standard error is small, so its few per cent of imprecision moves the gate's bar very little.
 */
export function resamplesFor(n: number): number {
  return n <= 1000 ? BOOTSTRAP_RESAMPLES : Math.max(BOOTSTRAP_MIN_RESAMPLES, Math.round(1e6 / n));
}

/** What the gate measured, in the metric's units, positive = the candidate is better. */
export interface PairedGain {
  /** The gain on the whole held-out part. */
  gain: number;
  /** Standard deviation of the gain over the resamples: its standard error. */
  se: number;
  /** Held-out rows compared. */
  n: number;
  /** Resamples that could be scored (a resample whose metric is undefined is skipped); 0 when linearized. */
  b: number;
  /**
   * How the standard error was had: resampling, or (AUC on more than LINEARIZE_ABOVE rows) the variance of
   * each row's share of the gain within its class — DeLong's structural components, the limit the
   * stratified bootstrap converges to, in O(n log n). Absent in states recorded before it existed.
   */
  method?: "bootstrap" | "linearized";
  /**
   * The same rows compared on the metric's continuous per-row loss (row_loss.ts): the statistic the gate
   * admits on, at a bar that spends the run's false-admit budget. Absent in states recorded before it existed
   * (those are judged by the bootstrap alone, as they were).
   */
  loss?: LossGain;
}

/** Held-out rows above which an AUC comparison is linearized instead of resampled. */
export const LINEARIZE_ABOVE = 1000;

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
  y.forEach((c, i) => {
    const g = by.get(c);
    if (g) g.push(i);
    else by.set(c, [i]);
  });
  return [...by.keys()].sort((a, b) => a - b).map((c) => by.get(c)!);
}

/**
 * Per-row terms of the metrics that are a function of per-row sums (everything but AUC): a resample's score
 * is then O(n) sums over the drawn rows, with no prediction copied. `combine` turns the drawn rows' mean
 * term (and, for R², the drawn labels' mean and mean square) into the metric.
 */
function rowTerms(metric: MetricName, y: Float64Array, p: Prediction): Float64Array | null {
  const n = y.length;
  const t = new Float64Array(n);
  const one = (i: number): Prediction => ({
    task: p.task,
    k: p.k,
    values: p.values.subarray(i * p.k, i * p.k + p.k),
  });
  switch (metric) {
    case "accuracy":
    case "logloss":
      for (let i = 0; i < n; i++) t[i] = score(metric, y.subarray(i, i + 1), one(i));
      return t;
    case "mae":
      for (let i = 0; i < n; i++) t[i] = Math.abs(y[i]! - p.values[i]!);
      return t;
    case "rmse":
    case "r2":
      for (let i = 0; i < n; i++) t[i] = (y[i]! - p.values[i]!) ** 2;
      return t;
    case "auc":
      return null;
  }
}

/** The metric of the drawn rows from the mean of their terms (sy, syy: the drawn labels' mean, mean square). */
function combine(metric: MetricName, mean: number, sy: number, syy: number): number {
  if (metric === "rmse") return Math.sqrt(mean);
  if (metric === "r2") {
    const tot = syy - sy * sy;
    return tot <= 0 ? (mean === 0 ? 1 : 0) : 1 - mean / tot;
  }
  return mean;
}

/** Draws `resamples` stratified resamples (seeded) and summarises `diffOf` over them. */
function bootstrap(
  y: Float64Array,
  task: Task,
  seed: number,
  resamples: number,
  gain: number,
  diffOf: (idx: Int32Array) => number,
): PairedGain {
  const n = y.length;
  const groups = strata(task, y);
  const rng = mulberry32(subSeed(seed, "paired-bootstrap"));
  const diffs: number[] = [];
  const idx = new Int32Array(n);
  for (let b = 0; b < resamples; b++) {
    let at = 0;
    for (const g of groups) {
      for (let i = 0; i < g.length; i++) idx[at++] = g[Math.floor(rng() * g.length)]!;
    }
    const d = diffOf(idx);
    if (Number.isFinite(d)) diffs.push(d);
  }
  const mean = diffs.reduce((s, x) => s + x, 0) / Math.max(1, diffs.length);
  const v = diffs.length > 1 ? diffs.reduce((s, x) => s + (x - mean) ** 2, 0) / (diffs.length - 1) : NaN;
  return { gain, se: Math.sqrt(v), n, b: diffs.length, method: "bootstrap" };
}

/** Every row's score for class `c` (a binary prediction's single column, else column `c`). */
function scoresOf(p: Prediction, c: number): ArrayLike<number> {
  if (p.k === 1) return p.values;
  const n = p.values.length / p.k;
  return Float64Array.from({ length: n }, (_, i) => p.values[i * p.k + c]!);
}

/**
 * AUC of a resample given as row counts, without sorting it: the scores are sorted once, and a resample's
 * Mann–Whitney U is summed over tie groups in that order (each positive counts the negatives below it and
 * half of those tied with it) — exactly the rank-sum with average ranks that `score` computes on the
 * expanded resample (every term is a small half-integer, so the two agree to the last bit). Multiclass is
 * the mean over classes with both sides present, one-vs-rest, as `score` does it.
 */
function aucOfCounts(y: Float64Array, p: Prediction): (w: Int32Array) => number {
  const n = y.length;
  const classes = p.k === 1 ? [1] : Array.from({ length: p.k }, (_, c) => c);
  // Per class, in score order: each row, whether it is of the class, and where each tie group ends
  // (exclusive) — typed arrays and whole-number counts, so a resample's pass is a plain integer loop.
  const sorted = classes.map((c) => {
    const s = scoresOf(p, c);
    const order = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => s[a]! - s[b]!);
    const ofClass = Uint8Array.from(order, (r) => (y[r] === c ? 1 : 0));
    const ends: number[] = [];
    for (let i = 0; i < n; i++) if (i + 1 === n || s[order[i + 1]!] !== s[order[i]!]) ends.push(i + 1);
    return { order, ofClass, ends: Int32Array.from(ends) };
  });
  return (w) => {
    let sum = 0, used = 0;
    for (let k = 0; k < sorted.length; k++) {
      const { order, ofClass, ends } = sorted[k]!;
      let u = 0, below = 0, nPos = 0, nNeg = 0, at = 0;
      for (let g = 0; g < ends.length; g++) {
        const end = ends[g]!;
        let pos = 0, neg = 0;
        for (; at < end; at++) {
          const x = w[order[at]!]!;
          if (ofClass[at] === 1) pos += x;
          else neg += x;
        }
        u += pos * (below + neg / 2);
        below += neg;
        nPos += pos;
        nNeg += neg;
      }
      if (nPos === 0 || nNeg === 0) continue;
      sum += u / (nPos * nNeg);
      used++;
    }
    return used ? sum / used : NaN;
  };
}

/**
 * Each row's structural component of the one-vs-rest AUC of class `c` (DeLong): a positive's share of the
 * negatives scored below it, a negative's share of the positives scored above it, ties counting half. Their
 * mean over the positives (or over the negatives) is the AUC. Null when one side is empty.
 */
function structural(
  y: Float64Array,
  s: ArrayLike<number>,
  c: number,
): { v: Float64Array; pos: number; neg: number } | null {
  const n = y.length;
  const order = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => s[a]! - s[b]!);
  let pos = 0;
  for (let i = 0; i < n; i++) if (y[i] === c) pos++;
  const neg = n - pos;
  if (pos === 0 || neg === 0) return null;
  const v = new Float64Array(n);
  let posBelow = 0, negBelow = 0;
  for (let at = 0; at < n;) {
    let end = at, p = 0, q = 0;
    while (end < n && s[order[end]!] === s[order[at]!]) (y[order[end]!] === c ? p++ : q++), end++;
    for (let i = at; i < end; i++) {
      const r = order[i]!;
      v[r] = y[r] === c ? (negBelow + q / 2) / neg : (pos - posBelow - p + p / 2) / pos;
    }
    posBelow += p;
    negBelow += q;
    at = end;
  }
  return { v, pos, neg };
}

/**
 * The standard error of an AUC difference by linearization: every row's share of the difference (its
 * structural components, candidate minus incumbent, over the size of its side, averaged over the classes
 * with both sides present) varies within its class, and the variance of the gain is the sum over classes of
 * n_class × that within-class variance — what the class-stratified bootstrap estimates by resampling.
 */
function linearizedAuc(y: Float64Array, c: Prediction, inc: Prediction, gain: number): PairedGain {
  const n = y.length;
  const classes = c.k === 1 ? [1] : Array.from({ length: c.k }, (_, j) => j);
  const share = new Float64Array(n);
  let used = 0;
  for (const cls of classes) {
    const a = structural(y, scoresOf(c, cls), cls), b = structural(y, scoresOf(inc, cls), cls);
    if (!a || !b) continue;
    used++;
    for (let r = 0; r < n; r++) share[r] = share[r]! + (a.v[r]! - b.v[r]!) / (y[r] === cls ? a.pos : a.neg);
  }
  if (!used) return { gain, se: NaN, n, b: 0, method: "linearized" };
  let variance = 0;
  for (const g of strata(c.task, y)) {
    if (g.length < 2) continue;
    let mean = 0;
    for (const r of g) mean += share[r]! / used;
    mean /= g.length;
    let ss = 0;
    for (const r of g) ss += (share[r]! / used - mean) ** 2;
    variance += g.length * (ss / (g.length - 1));
  }
  return { gain, se: Math.sqrt(variance), n, b: 0, method: "linearized" };
}

/** Every resample scored from scratch: AUC's way, and the reference the per-row path is tested against. */
function rescoring(metric: MetricName, y: Float64Array, c: Prediction, inc: Prediction, sign: 1 | -1) {
  const ys = new Float64Array(y.length);
  return (idx: Int32Array) => {
    for (let i = 0; i < idx.length; i++) ys[i] = y[idx[i]!]!;
    return sign * (score(metric, ys, subset(c, idx)) - score(metric, ys, subset(inc, idx)));
  };
}

/**
 * The candidate's held-out gain over the incumbent and its bootstrap standard error. `sign` is +1 when the
 * metric is maximised; `seed` fixes the resamples (the same rows are drawn for both prediction sets).
 * `rescore` forces scoring every resample from scratch (slower; the per-row path gives the same numbers).
 * Without `resamples`, an AUC comparison on more than LINEARIZE_ABOVE rows is linearized, and any other
 * takes `resamplesFor(n)` resamples; with it, that many resamples are drawn whatever the size.
 */
export function pairedBootstrap(
  metric: MetricName,
  y: Float64Array,
  candidate: Prediction,
  incumbent: Prediction,
  sign: 1 | -1,
  seed: number,
  resamples?: number,
  rescore = false,
): PairedGain {
  const n = y.length;
  const gain = sign * (score(metric, y, candidate) - score(metric, y, incumbent));
  if (metric === "auc" && resamples === undefined && n > LINEARIZE_ABOVE) {
    return linearizedAuc(y, candidate, incumbent, gain);
  }
  resamples ??= resamplesFor(n);
  if (metric === "auc" && !rescore) {
    const ac = aucOfCounts(y, candidate), ai = aucOfCounts(y, incumbent);
    const w = new Int32Array(n);
    return bootstrap(y, candidate.task, seed, resamples, gain, (idx) => {
      w.fill(0);
      for (let i = 0; i < idx.length; i++) w[idx[i]!]! += 1;
      return sign * (ac(w) - ai(w));
    });
  }
  const tc = rescore ? null : rowTerms(metric, y, candidate);
  const ti = rescore ? null : rowTerms(metric, y, incumbent);
  if (!tc || !ti) {
    return bootstrap(
      y,
      candidate.task,
      seed,
      resamples,
      gain,
      rescoring(metric, y, candidate, incumbent, sign),
    );
  }
  return bootstrap(y, candidate.task, seed, resamples, gain, (idx) => {
    let c = 0, inc = 0, sy = 0, syy = 0;
    for (let i = 0; i < n; i++) {
      const r = idx[i]!;
      c += tc[r]!;
      inc += ti[r]!;
      sy += y[r]!;
      syy += y[r]! * y[r]!;
    }
    const my = sy / n, myy = syy / n;
    return sign * (combine(metric, c / n, my, myy) - combine(metric, inc / n, my, myy));
  });
}
