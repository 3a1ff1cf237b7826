/**
 * The configuration space of a sweep: each parameter's values (a list, a range or a log-range, continuous or
 * as n points), and the configurations a sweep tries — every combination (grid) or `count` distinct draws
 * from a seeded mulberry32 stream. Pure and deterministic: the same spec gives the same configurations, in
 * the same order, on every machine.
 *
 * @module
 */
import { mulberry32 } from "../tabular/prng.ts";
export { mulberry32 };

export type Scalar = string | number | boolean;

/** One parameter as written: exactly one of the three keys. */
export interface SweepParam {
  values?: Scalar[];
  range?: number[];
  log_range?: number[];
}

/** Most configurations one sweep may expand to (each becomes a long node). */
export const MAX_CONFIGS = 256;
/** Most points a `[low, high, n]` range may name. */
export const MAX_POINTS = 1000;

/** A parameter resolved: finite (a list of values) or continuous (a sampler over [lo, hi]). */
export type Domain =
  | { finite: true; values: Scalar[] }
  | { finite: false; lo: number; hi: number; log: boolean; int: boolean };

const isInt = (x: number) => Number.isInteger(x);
const round9 = (x: number) => Math.round(x * 1e9) / 1e9;

/** n evenly (or log-evenly) spaced points from lo to hi, rounded to integers when asked, without repeats. */
function points(lo: number, hi: number, n: number, log: boolean, ints: boolean): number[] {
  const out: number[] = [];
  for (let k = 0; k < n; k++) {
    const f = n === 1 ? 0 : k / (n - 1);
    const v = log ? Math.exp(Math.log(lo) + f * (Math.log(hi) - Math.log(lo))) : lo + f * (hi - lo);
    const x = k === n - 1 ? hi : ints ? Math.round(v) : round9(v);
    if (!out.includes(x)) out.push(x);
  }
  return out;
}

/** The domain of a parameter, or a reason it has none (the validator words it with a position). */
export function domainOf(p: SweepParam): Domain | string {
  const keys = (["values", "range", "log_range"] as const).filter((k) => p[k] !== undefined);
  if (keys.length !== 1) return "give exactly one of values, range, log_range";
  if (p.values) {
    if (!p.values.length) return "values must not be empty";
    const seen = new Set(p.values.map((v) => JSON.stringify(v)));
    if (seen.size !== p.values.length) return "values lists a value twice";
    return { finite: true, values: [...p.values] };
  }
  const log = p.log_range !== undefined;
  const r = (p.range ?? p.log_range)!;
  const name = log ? "log_range" : "range";
  if (r.length < 2 || r.length > 3) return `${name} is [low, high] or [low, high, n]`;
  const [lo, hi, n] = r as [number, number, number | undefined];
  if (!(lo < hi)) return `${name} needs low < high, got [${lo}, ${hi}]`;
  if (log && lo <= 0) return `log_range needs low > 0, got ${lo}`;
  if (n === undefined) return { finite: false, lo, hi, log, int: isInt(lo) && isInt(hi) && !log };
  if (!isInt(n) || n < 2 || n > MAX_POINTS) {
    return `the n of ${name} must be an integer from 2 to ${MAX_POINTS}`;
  }
  // Integer ends give integer points, unless there are fewer integers than points: then n evenly spaced floats.
  const ints = isInt(lo) && isInt(hi) && (log ? true : n <= hi - lo + 1);
  const values = points(lo, hi, n, log, ints);
  if (values.length < n) {
    return `${name} [${lo}, ${hi}] holds only ${values.length} distinct integer points, fewer than n = ${n}`;
  }
  return { finite: true, values };
}

/** An integer range without n is finite too: every integer from lo to hi. */
export function finiteValues(d: Domain): Scalar[] | null {
  if (d.finite) return d.values;
  if (d.int && d.hi - d.lo + 1 <= MAX_POINTS) return points(d.lo, d.hi, d.hi - d.lo + 1, false, true);
  return null;
}

/** Number of distinct configurations a space holds (Infinity when a parameter is continuous). */
export function spaceSize(domains: Record<string, Domain>): number {
  let size = 1;
  for (const d of Object.values(domains)) {
    const v = finiteValues(d);
    size *= v ? v.length : Infinity;
  }
  return size;
}

function draw(d: Domain, rand: () => number): Scalar {
  const values = finiteValues(d);
  if (values) return values[Math.min(values.length - 1, Math.floor(rand() * values.length))]!;
  if (d.finite) throw new RangeError("unreachable: a finite domain always has values");
  const u = rand();
  const v = d.log
    ? Math.exp(Math.log(d.lo) + u * (Math.log(d.hi) - Math.log(d.lo)))
    : d.lo + u * (d.hi - d.lo);
  return d.log && isInt(d.lo) && isInt(d.hi) ? Math.round(v) : round9(v);
}

export type Config = Record<string, Scalar>;

/**
 * The configurations of a space. Parameters are taken in sorted name order. A grid lists every combination
 * with the first name varying slowest; `count` draws configurations one parameter at a time from a
 * mulberry32 stream seeded with `seed`, skipping any already drawn (a space smaller than `count` is refused
 * by the validator before this runs).
 */
export function configurations(
  domains: Record<string, Domain>,
  how: { grid: true } | { count: number; seed: number },
): Config[] {
  const names = Object.keys(domains).sort();
  if ("grid" in how) {
    let out: Config[] = [{}];
    for (const name of names) {
      const values = finiteValues(domains[name]!);
      if (!values) throw new RangeError(`Cannot list a grid: parameter "${name}" is continuous`);
      out = out.flatMap((c) => values.map((v) => ({ ...c, [name]: v })));
    }
    return out;
  }
  const rand = mulberry32(how.seed);
  const seen = new Set<string>();
  const out: Config[] = [];
  for (let tries = 0; out.length < how.count && tries < how.count * 1000; tries++) {
    const c: Config = {};
    for (const name of names) c[name] = draw(domains[name]!, rand);
    const key = JSON.stringify(names.map((n) => c[n]));
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(c);
  }
  return out;
}
