/**
 * Encoders from a typed table to the numeric matrix the GBDT reads, fit on training rows only: whatever the
 * encoders know (levels, frequencies, target means) comes from those rows, so a level that first appears in a
 * validation fold is "unknown" there. Per column:
 *
 * - numeric, boolean → the values as they are (NaN = missing, which the GBDT routes natively);
 * - categorical with ≤ `maxOneHot` training levels → **one-hot** `col=level` (unknown → 0 in every indicator,
 *   missing → NaN in every indicator);
 * - more levels → **ordinal** by training frequency rank (0 = most frequent, ties by name; unknown → the
 *   number of levels, i.e. rarer than any; missing → NaN) or **frequency** `col~freq` (share of training rows;
 *   unknown → 0; missing → NaN), per `highCardinality`;
 * - columns listed in `targetEncode` → **out-of-fold target mean** `col~te` (one column per class for
 *   multiclass), smoothed toward the prior by `smoothing` pseudo-rows: training rows get the mean over the
 *   other inner folds of the training rows (seeded), other rows the mean over all training rows; unknown and
 *   missing → the prior;
 * - text columns and those listed in `drop` → left out (a feature transform can derive numbers from text).
 *
 * An `Encoding` is plain JSON, so a fitted pipeline can be stored beside its model.
 *
 * @module
 */
import { mulberry32, shuffleInPlace, subSeed } from "./prng.ts";
import { type CategoricalColumn, type Column, getColumn, type Rows, type Table } from "./table.ts";
import type { Target } from "./target.ts";

/** A column-major numeric matrix: `columns[j][i]` is feature j of row i. */
export interface Matrix {
  names: string[];
  columns: Float64Array[];
  nRows: number;
}

export interface EncodingOptions {
  /** Categoricals with at most this many training levels are one-hot encoded (default 10). */
  maxOneHot?: number;
  highCardinality?: "ordinal" | "frequency";
  targetEncode?: readonly string[];
  drop?: readonly string[];
  /** Pseudo-rows of prior in a target mean (default 10). */
  smoothing?: number;
  /** Inner folds for out-of-fold target means on training rows (default 5). */
  innerFolds?: number;
  seed?: number;
}

export type ColumnEncoder =
  | { kind: "value"; column: string }
  | { kind: "onehot"; column: string; levels: string[] }
  | { kind: "ordinal"; column: string; levels: string[] }
  | { kind: "frequency"; column: string; levels: string[]; shares: number[] }
  | { kind: "target"; column: string; levels: string[]; means: number[][]; prior: number[] };

export interface Encoding {
  encoders: ColumnEncoder[];
  names: string[];
  /** Columns left out, and why. */
  dropped: { column: string; reason: string }[];
  /** For target encoders: the options needed to recompute out-of-fold means on training rows. */
  smoothing: number;
  innerFolds: number;
  seed: number;
}

/** Training-level counts of a categorical column, by level text. */
function levelCounts(col: CategoricalColumn, rows: ArrayLike<number>): Map<string, number> {
  const counts = new Int32Array(col.levels.length);
  for (let i = 0; i < rows.length; i++) {
    const c = col.codes[rows[i]!]!;
    if (c >= 0) counts[c]!++;
  }
  const out = new Map<string, number>();
  col.levels.forEach((l, k) => counts[k]! > 0 && out.set(l, counts[k]!));
  return out;
}

/** Fits one encoder per usable column on `train` rows (the target column itself is never a feature). */
export function fitEncoding(
  table: Table,
  train: Rows,
  target: Target,
  options: EncodingOptions = {},
): Encoding {
  const maxOneHot = options.maxOneHot ?? 10;
  const te = new Set(options.targetEncode ?? []);
  const drop = new Set(options.drop ?? []);
  for (const name of [...te, ...drop]) getColumn(table, name);
  const encoders: ColumnEncoder[] = [];
  const dropped: Encoding["dropped"] = [];
  const smoothing = options.smoothing ?? 10;
  for (const col of table.columns) {
    if (col.name === target.name) continue;
    if (drop.has(col.name)) dropped.push({ column: col.name, reason: "asked" });
    else if (col.kind === "numeric" || col.kind === "boolean") {
      encoders.push({ kind: "value", column: col.name });
    } else if (col.kind === "text" && !te.has(col.name)) {
      dropped.push({ column: col.name, reason: "free text" });
    } else {
      const cat = col.kind === "text" ? asCategorical(col) : col;
      const counts = levelCounts(cat, train);
      const byRank = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
      const levels = byRank.map(([l]) => l);
      if (te.has(col.name)) {
        const stats = targetStats(cat, train, target, levels);
        encoders.push({ kind: "target", column: col.name, levels, ...smooth(stats, smoothing) });
      } else if (levels.length <= maxOneHot) {
        encoders.push({
          kind: "onehot",
          column: col.name,
          levels: [...levels].sort((a, b) => (a < b ? -1 : 1)),
        });
      } else if (options.highCardinality === "frequency") {
        const shares = byRank.map(([, c]) => c / train.length);
        encoders.push({ kind: "frequency", column: col.name, levels, shares });
      } else encoders.push({ kind: "ordinal", column: col.name, levels });
    }
  }
  const names = encoders.flatMap((e) => outputNames(e, target));
  return {
    encoders,
    names,
    dropped,
    smoothing,
    innerFolds: options.innerFolds ?? 5,
    seed: options.seed ?? 0,
  };
}

function outputNames(e: ColumnEncoder, target: Target): string[] {
  switch (e.kind) {
    case "value":
    case "ordinal":
      return [e.column];
    case "onehot":
      return e.levels.map((l) => `${e.column}=${l}`);
    case "frequency":
      return [`${e.column}~freq`];
    case "target":
      return target.task === "multiclass"
        ? target.classes.map((c) => `${e.column}~te=${c}`)
        : [`${e.column}~te`];
  }
}

function asCategorical(col: Column): CategoricalColumn {
  if (col.kind === "categorical") return col;
  if (col.kind !== "text") throw new TypeError(`Cannot treat ${col.kind} column ${col.name} as categorical`);
  const levels = [...new Set(col.values.filter((v): v is string => v !== null))];
  const index = new Map(levels.map((l, k) => [l, k]));
  return {
    kind: "categorical",
    name: col.name,
    levels,
    codes: Int32Array.from(col.values, (v) => (v === null ? -1 : index.get(v)!)),
  };
}

interface TargetStats {
  /** sums[level][output], counts[level], over the rows given; plus the totals. */
  sums: number[][];
  counts: number[];
  total: number[];
  n: number;
}

function outputs(target: Target): number {
  return target.task === "multiclass" ? target.classes.length : 1;
}

function targetStats(
  col: CategoricalColumn,
  rows: ArrayLike<number>,
  target: Target,
  levels: string[],
): TargetStats {
  const k = outputs(target);
  const pos = new Map(levels.map((l, i) => [l, i]));
  const map = col.levels.map((l) => pos.get(l) ?? -1);
  const sums = levels.map(() => new Array<number>(k).fill(0));
  const counts = new Array<number>(levels.length).fill(0);
  const total = new Array<number>(k).fill(0);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    const y = target.y[r]!;
    const c = col.codes[r]!;
    const li = c >= 0 ? map[c]! : -1;
    for (let o = 0; o < k; o++) {
      const v = k === 1 ? y : (y === o ? 1 : 0);
      total[o]! += v;
      if (li >= 0) sums[li]![o]! += v;
    }
    if (li >= 0) counts[li]!++;
  }
  return { sums, counts, total, n: rows.length };
}

function smooth(s: TargetStats, m: number): { means: number[][]; prior: number[] } {
  const prior = s.total.map((t) => (s.n ? t / s.n : 0));
  const means = s.sums.map((row, l) => row.map((v, o) => (v + m * prior[o]!) / (s.counts[l]! + m)));
  return { means, prior };
}

/** Encodes `rows` of `table` with a fitted encoding (for rows the encoders were not fit on). */
export function applyEncoding(enc: Encoding, table: Table, rows: ArrayLike<number>): Matrix {
  const columns: Float64Array[] = [];
  for (const e of enc.encoders) columns.push(...encodeColumn(e, getColumn(table, e.column), rows));
  return { names: enc.names, columns, nRows: rows.length };
}

/**
 * Encodes the training rows the encoding was fit on: like `applyEncoding`, except that target-encoded columns
 * get out-of-fold means, so no training row sees its own label.
 */
export function applyEncodingToTrain(enc: Encoding, table: Table, train: Rows, target: Target): Matrix {
  const m = applyEncoding(enc, table, train);
  let j = 0;
  for (const e of enc.encoders) {
    const width = outputNames(e, target).length;
    if (e.kind === "target") {
      const oof = outOfFold(e, asCategorical(getColumn(table, e.column)), train, target, enc);
      for (let o = 0; o < width; o++) m.columns[j + o] = oof[o]!;
    }
    j += width;
  }
  return m;
}

function outOfFold(
  e: Extract<ColumnEncoder, { kind: "target" }>,
  col: CategoricalColumn,
  train: Rows,
  target: Target,
  enc: Encoding,
): Float64Array[] {
  const k = outputs(target);
  const folds = Math.max(2, Math.min(enc.innerFolds, train.length));
  const order = shuffleInPlace(Int32Array.from(train), mulberry32(subSeed(enc.seed, `te:${e.column}`)));
  const foldOf = new Map<number, number>();
  order.forEach((r, i) => foldOf.set(r, i % folds));
  const out = Array.from({ length: k }, () => new Float64Array(train.length));
  for (let f = 0; f < folds; f++) {
    const fit = train.filter((r) => foldOf.get(r) !== f);
    const fitted = smooth(targetStats(col, fit, target, e.levels), enc.smoothing);
    const inner = { ...e, ...fitted };
    const idx: number[] = [];
    train.forEach((r, i) => foldOf.get(r) === f && idx.push(i));
    const cols = encodeColumn(inner, col, idx.map((i) => train[i]!));
    idx.forEach((i, t) => cols.forEach((c, o) => (out[o]![i] = c[t]!)));
  }
  return out;
}

function encodeColumn(e: ColumnEncoder, col: Column, rows: ArrayLike<number>): Float64Array[] {
  const n = rows.length;
  if (e.kind === "value") {
    if (col.kind !== "numeric" && col.kind !== "boolean") {
      throw new TypeError(
        `Cannot encode column ${JSON.stringify(e.column)}: fit as numeric, now ${col.kind}`,
      );
    }
    const v = new Float64Array(n);
    for (let i = 0; i < n; i++) v[i] = col.values[rows[i]!]!;
    return [v];
  }
  if (col.kind === "numeric" || col.kind === "boolean") {
    throw new TypeError(
      `Cannot encode column ${JSON.stringify(e.column)}: fit as categorical, now ${col.kind}`,
    );
  }
  const cat = asCategorical(col);
  const pos = new Map(e.levels.map((l, i) => [l, i]));
  const map = cat.levels.map((l) => pos.get(l) ?? -1);
  const at = (i: number) => {
    const c = cat.codes[rows[i]!]!;
    return c < 0 ? -2 : map[c]!;
  };
  switch (e.kind) {
    case "onehot": {
      const cols = e.levels.map(() => new Float64Array(n));
      for (let i = 0; i < n; i++) {
        const li = at(i);
        if (li === -2) { for (const c of cols) c[i] = NaN; }
        else if (li >= 0) cols[li]![i] = 1;
      }
      return cols;
    }
    case "ordinal":
    case "frequency": {
      const v = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const li = at(i);
        v[i] = li === -2
          ? NaN
          : e.kind === "ordinal"
          ? (li < 0 ? e.levels.length : li)
          : (li < 0 ? 0 : e.shares[li]!);
      }
      return [v];
    }
    case "target": {
      const cols = e.prior.map(() => new Float64Array(n));
      for (let i = 0; i < n; i++) {
        const li = at(i);
        cols.forEach((c, o) => (c[i] = li < 0 ? e.prior[o]! : e.means[li]![o]!));
      }
      return cols;
    }
  }
}
