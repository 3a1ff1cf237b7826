/**
 * Seeded splits of a target's usable rows into three parts — **dev** (cut into k folds: the only rows
 * executors see), **held-out** (read only by the merge gate) and **test** (evaluated once at the end) — with
 * the mulberry32 PRNG (prng.ts).
 *
 * Classification is stratified: the rows of each class are shuffled on their own; of each class the first
 * rows go to test, the next to held-out, the rest to dev, in counts rounded cumulatively over the classes (so
 * the part sizes match the fractions of the whole to one row, and each class's share to one row — except that a
 * class keeps at least one dev row, so a class of one or two rows gives up its held-out or test row); dev rows of
 * each class are then dealt round-robin to the folds, continuing where the previous class stopped, so every
 * fold's class mix matches the whole within one row per class. Regression uses the same procedure with
 * one group ordered by the target and cut into consecutive blocks of `folds` rows, each block shuffled and
 * dealt (so folds also share the target's distribution). Every index list is sorted ascending.
 *
 * @module
 */
import { mulberry32, shuffleInPlace, subSeed } from "./prng.ts";
import type { Rows } from "./table.ts";
import type { Target } from "./target.ts";

export interface SplitOptions {
  seed: number;
  /** Folds of the dev part (default 5, at least 2). */
  folds?: number;
  /** Share of usable rows held out for the merge gate (default 0.2). */
  heldoutFraction?: number;
  /** Share of usable rows kept for the final test (default 0.2). */
  testFraction?: number;
}

export interface Fold {
  train: Rows;
  valid: Rows;
}

export interface Splits {
  seed: number;
  dev: Rows;
  heldout: Rows;
  test: Rows;
  folds: Fold[];
}

/** Splits `target.usable` into dev folds, held-out and test parts; deterministic in `options.seed`. */
export function makeSplits(target: Target, options: SplitOptions): Splits {
  const k = options.folds ?? 5;
  const hf = options.heldoutFraction ?? 0.2;
  const tf = options.testFraction ?? 0.2;
  if (!Number.isInteger(k) || k < 2) throw new RangeError(`Cannot make ${k} folds: use an integer ≥ 2`);
  if (!(hf >= 0 && tf >= 0 && hf + tf < 1)) {
    throw new RangeError(`Cannot split with held-out ${hf} and test ${tf}: each ≥ 0 and their sum < 1`);
  }
  const rng = mulberry32(subSeed(options.seed, "splits"));
  const groups = groupsOf(target, k, rng);
  const dev: number[] = [], heldout: number[] = [], test: number[] = [];
  const foldRows: number[][] = Array.from({ length: k }, () => []);
  let next = 0, seen = 0;
  for (const g of groups) {
    shuffleInPlace(g, rng);
    let nt = Math.round((seen + g.length) * tf) - Math.round(seen * tf);
    let nh = Math.round((seen + g.length) * hf) - Math.round(seen * hf);
    seen += g.length;
    // A class keeps a dev row whenever it has one: a class no executor's row shows cannot be learned, and the
    // dev rows' classes would not be the task's. Only a class of one or two rows is cut this way (held-out
    // gives way first).
    if (target.task !== "regression" && g.length > 0 && nt + nh >= g.length) {
      const over = nt + nh - (g.length - 1);
      const fromHeld = Math.min(nh, over);
      nh -= fromHeld;
      nt -= over - fromHeld;
    }
    for (let i = 0; i < g.length; i++) {
      const r = g[i]!;
      if (i < nt) test.push(r);
      else if (i < nt + nh) heldout.push(r);
      else {
        dev.push(r);
        foldRows[next]!.push(r);
        next = (next + 1) % k;
      }
    }
  }
  if (dev.length < k) {
    throw new RangeError(`Cannot cut ${dev.length} dev rows into ${k} folds: too few rows`);
  }
  const sorted = (a: number[]) => Int32Array.from(a).sort();
  const folds = foldRows.map((valid, f) => ({
    train: sorted(foldRows.flatMap((rows, g) => (g === f ? [] : rows))),
    valid: sorted(valid),
  }));
  return { seed: options.seed, dev: sorted(dev), heldout: sorted(heldout), test: sorted(test), folds };
}

/** Stratification groups: one per class; for regression, blocks of consecutive target order. */
function groupsOf(target: Target, k: number, rng: () => number): Int32Array[] {
  const rows = Array.from(target.usable);
  if (target.task !== "regression") {
    return target.classes.map((_, c) => Int32Array.from(rows.filter((r) => target.y[r] === c)));
  }
  shuffleInPlace(rows, rng);
  rows.sort((a, b) => target.y[a]! - target.y[b]!);
  const block = Math.max(k, 5);
  const out: Int32Array[] = [];
  for (let i = 0; i < rows.length; i += block) out.push(Int32Array.from(rows.slice(i, i + block)));
  return out;
}

/**
 * The folds of `splits` re-indexed into a table that holds only `rows` (row i of the new table is
 * `rows[i]` of the old), for an executor handed the dev rows alone; held-out and test are left empty.
 */
export function restrictSplits(splits: Splits, rows: ArrayLike<number>): Splits {
  const at = new Map<number, number>();
  for (let i = 0; i < rows.length; i++) at.set(rows[i]!, i);
  const map = (a: Rows) =>
    Int32Array.from(a, (r) => {
      const i = at.get(r);
      if (i === undefined) {
        throw new RangeError(`Cannot restrict the splits: row ${r} is not among the rows kept`);
      }
      return i;
    }).sort();
  return {
    seed: splits.seed,
    dev: map(splits.dev),
    heldout: new Int32Array(0),
    test: new Int32Array(0),
    folds: splits.folds.map((f) => ({ train: map(f.train), valid: map(f.valid) })),
  };
}

/** Splits as plain JSON (index arrays as number lists), e.g. for an executor's input file. */
export interface SplitsJson {
  seed: number;
  dev: number[];
  heldout: number[];
  test: number[];
  folds: { train: number[]; valid: number[] }[];
}

export function splitsToJson(s: Splits): SplitsJson {
  const a = (r: Rows) => Array.from(r);
  return {
    seed: s.seed,
    dev: a(s.dev),
    heldout: a(s.heldout),
    test: a(s.test),
    folds: s.folds.map((f) => ({ train: a(f.train), valid: a(f.valid) })),
  };
}

/** Reads splits back from JSON, checking every index is an integer in [0, nRows). */
export function splitsFromJson(v: unknown, nRows: number): Splits {
  const bad = (why: string): never => {
    throw new TypeError(`Cannot read the splits: ${why}`);
  };
  const o = (typeof v === "object" && v !== null ? v : bad("not an object")) as Record<string, unknown>;
  const rows = (x: unknown, what: string): Rows => {
    if (!Array.isArray(x)) return bad(`${what} is not a list`);
    for (const r of x) {
      if (!Number.isInteger(r) || r < 0 || r >= nRows) bad(`${what} holds ${JSON.stringify(r)}`);
    }
    return Int32Array.from(x as number[]);
  };
  if (!Number.isInteger(o.seed)) bad("seed is not an integer");
  if (!Array.isArray(o.folds)) bad("folds is not a list");
  return {
    seed: o.seed as number,
    dev: rows(o.dev, "dev"),
    heldout: rows(o.heldout, "heldout"),
    test: rows(o.test, "test"),
    folds: (o.folds as Record<string, unknown>[]).map((f, i) => ({
      train: rows(f?.train, `fold ${i} train`),
      valid: rows(f?.valid, `fold ${i} valid`),
    })),
  };
}
