/**
 * Paired 95 % intervals for the tree benchmark: per seed, two scores measured on the same rows are
 * differenced, and the mean difference gets a Student-t interval over seeds (seeds are the independent
 * replicates; datasets summed within a seed keep the pairing).
 *
 * @module
 */

/** Two-sided 97.5 % quantiles of Student's t for 1–30 degrees of freedom (then the normal's 1.96). */
const T975 = [
  12.706,
  4.303,
  3.182,
  2.776,
  2.571,
  2.447,
  2.365,
  2.306,
  2.262,
  2.228,
  2.201,
  2.179,
  2.16,
  2.145,
  2.131,
  2.12,
  2.11,
  2.101,
  2.093,
  2.086,
  2.08,
  2.074,
  2.069,
  2.064,
  2.06,
  2.056,
  2.052,
  2.048,
  2.045,
  2.042,
];

export function t975(df: number): number {
  if (!Number.isInteger(df) || df < 1) return NaN;
  return T975[df - 1] ?? 1.96;
}

export interface Interval {
  n: number;
  mean: number;
  /** Half-width of the 95 % interval (NaN with fewer than two values). */
  half: number;
}

/** Mean of `xs` with its t-interval half-width; NaN values are refused (a missing pair is a bug here). */
export function interval(xs: readonly number[]): Interval {
  if (xs.some((x) => Number.isNaN(x))) throw new RangeError("Cannot make an interval: a value is NaN");
  const n = xs.length;
  if (n === 0) return { n, mean: NaN, half: NaN };
  const mean = xs.reduce((s, x) => s + x, 0) / n;
  if (n < 2) return { n, mean, half: NaN };
  const sd = Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1));
  return { n, mean, half: t975(n - 1) * sd / Math.sqrt(n) };
}

/** Differences a[s] − b[s] over the keys both have, in key order; a key in one only is an error. */
export function pairedDiffs(a: ReadonlyMap<number, number>, b: ReadonlyMap<number, number>): number[] {
  const keys = [...a.keys()].sort((x, y) => x - y);
  const missing = [...keys.filter((k) => !b.has(k)), ...[...b.keys()].filter((k) => !a.has(k))];
  if (missing.length) throw new RangeError(`Cannot pair: seed(s) ${missing.join(", ")} on one side only`);
  return keys.map((k) => a.get(k)! - b.get(k)!);
}

/** Sums per seed over datasets: the per-seed totals of `diffs` (dataset → seed → difference). */
export function sumOverDatasets(diffs: ReadonlyMap<string, ReadonlyMap<number, number>>): number[] {
  const seeds = new Set<number>();
  for (const m of diffs.values()) for (const s of m.keys()) seeds.add(s);
  const out: number[] = [];
  for (const s of [...seeds].sort((x, y) => x - y)) {
    let total = 0;
    for (const [d, m] of diffs) {
      const v = m.get(s);
      if (v === undefined) throw new RangeError(`Cannot sum over datasets: ${d} has no seed ${s}`);
      total += v;
    }
    out.push(total);
  }
  return out;
}

/** "+0.0123 ± 0.0045" (or "± n/a" with one seed). */
export function showInterval(i: Interval, digits = 4): string {
  const sign = i.mean >= 0 ? "+" : "";
  return `${sign}${i.mean.toFixed(digits)} ± ${Number.isNaN(i.half) ? "n/a" : i.half.toFixed(digits)}`;
}
