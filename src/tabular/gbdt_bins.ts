/**
 * Quantile bins for the histogram GBDT, fit on training rows only. A feature with at most `maxBins` distinct
 * training values gets one bin per value (edges at the midpoints between neighbours); otherwise the edges are
 * the values at the q/maxBins quantiles (deduplicated). Bin b holds x ≤ edges[b] (the first such b), the last
 * real bin holds x above every edge, and bin `edges.length + 1` is missing (NaN). Rows are stored row-major
 * as *slots*: the bin plus the feature's offset in one flat histogram, so the hot loop has no branch; a
 * column-major copy of the bins (one byte each) serves partitioning, which reads one feature of many rows.
 * `binTraining` finds the same edges and bins without sorting whole columns (gbdt_cells.ts).
 *
 * @module
 */
import type { Matrix } from "./encode.ts";
import { cellEdgesAndBins, CellScratch } from "./gbdt_cells.ts";

/** Binned rows: `slots[r * p + f]` = offset[f] + bin of feature f for row r. */
export interface Binned {
  p: number;
  nRows: number;
  slots: Uint16Array | Int32Array;
  /** Real bins per feature (the missing bin is index `nBins[f]`). */
  nBins: Int32Array;
  /** First slot of each feature; `offset[p]` is the total slot count. */
  offset: Int32Array;
  /** `cols[f][r]` = the bin of feature f for row r (missing = nBins[f]). */
  cols: Uint8Array[];
}

function checkBins(maxBins: number): void {
  if (!(maxBins >= 2 && maxBins <= 255)) throw new RangeError(`Cannot use ${maxBins} bins: use 2–255`);
}

/** Edges per feature from the rows of X (all rows of X are training rows). */
export function fitEdges(X: Matrix, maxBins: number): Float64Array[] {
  checkBins(maxBins);
  return X.columns.map((col) => columnEdges(col, maxBins));
}

/** The edges of one training column, by sorting it: the definition `binTraining` must match bit for bit. */
export function columnEdges(col: Float64Array, maxBins: number): Float64Array {
  const all = new Float64Array(col.length);
  let m = 0;
  for (let i = 0; i < col.length; i++) if (col[i] === col[i]) all[m++] = col[i]!;
  const v = all.subarray(0, m).sort();
  let distinct = 0;
  for (let i = 0; i < m; i++) if (i === 0 || v[i] !== v[i - 1]) distinct++;
  const edges: number[] = [];
  if (distinct <= maxBins) {
    for (let i = 1; i < m; i++) if (v[i] !== v[i - 1]) edges.push(v[i - 1]! + (v[i]! - v[i - 1]!) / 2);
  } else {
    for (let q = 1; q < maxBins; q++) {
      const x = v[Math.floor((q * m) / maxBins)]!;
      if (edges.length === 0 || x > edges[edges.length - 1]!) edges.push(x);
    }
  }
  return Float64Array.from(edges);
}

/** The bin of x among sorted `edges`: the first b with x ≤ edges[b], else edges.length; NaN → missing bin. */
export function binOf(edges: Float64Array, x: number): number {
  if (Number.isNaN(x)) return edges.length + 1;
  // The count of edges below x, found without data-dependent branches (edges never decrease).
  let base = 0, len = edges.length + 1;
  while (len > 1) {
    const half = len >>> 1;
    base = edges[base + half - 1]! < x ? base + half : base;
    len -= half;
  }
  return base;
}

/** Bins every row of X with fitted edges. */
export function binRows(X: Matrix, edges: Float64Array[]): Binned {
  const n = X.nRows;
  const cols = edges.map((e, f) => {
    const col = X.columns[f]!, c = new Uint8Array(n);
    for (let r = 0; r < n; r++) c[r] = binOf(e, col[r]!);
    return c;
  });
  return assemble(n, edges, cols);
}

/** Fits the edges on the rows of X and bins those rows: `fitEdges` then `binRows`, the same bits, faster. */
export function binTraining(X: Matrix, maxBins: number): { edges: Float64Array[]; data: Binned } {
  checkBins(maxBins);
  const n = X.nRows, scratch = new CellScratch(n);
  const edges: Float64Array[] = [], cols: Uint8Array[] = [];
  for (const col of X.columns) {
    const bins = new Uint8Array(n);
    edges.push(binColumn(col, maxBins, scratch, bins)), cols.push(bins);
  }
  return { edges, data: assemble(n, edges, cols) };
}

/** The edges of one training column, its bins written into `bins`: one column of `binTraining`. */
export function binColumn(
  col: Float64Array,
  maxBins: number,
  scratch: CellScratch,
  bins: Uint8Array,
): Float64Array {
  const e = cellEdgesAndBins(col, maxBins, scratch, bins);
  if (e) return e;
  const sorted = columnEdges(col, maxBins);
  for (let r = 0; r < col.length; r++) bins[r] = binOf(sorted, col[r]!);
  return sorted;
}

/** Real bins per feature and each feature's first slot (`offset[p]` slots in all), from the edges. */
export function binLayout(edges: Float64Array[]): { nBins: Int32Array; offset: Int32Array } {
  const p = edges.length;
  const nBins = Int32Array.from(edges, (e) => e.length + 1);
  const offset = new Int32Array(p + 1);
  for (let f = 0; f < p; f++) offset[f + 1] = offset[f]! + nBins[f]! + 1;
  return { nBins, offset };
}

/** Writes the row-major slots of rows [from, to), a block of rows at a time (a column's run stays cached). */
export function writeSlots(
  slots: Uint16Array | Int32Array,
  cols: Uint8Array[],
  offset: Int32Array,
  from: number,
  to: number,
): void {
  const p = cols.length;
  for (let r0 = from; r0 < to; r0 += 4096) {
    const r1 = Math.min(to, r0 + 4096);
    for (let f = 0; f < p; f++) {
      const o = offset[f]!, c = cols[f]!;
      for (let r = r0, s = r0 * p + f; r < r1; r++, s += p) slots[s] = o + c[r]!;
    }
  }
}

function assemble(n: number, edges: Float64Array[], cols: Uint8Array[]): Binned {
  const p = edges.length;
  const { nBins, offset } = binLayout(edges);
  const slots = offset[p]! <= 65536 ? new Uint16Array(n * p) : new Int32Array(n * p);
  writeSlots(slots, cols, offset, 0, n);
  return { p, nRows: n, slots, nBins, offset, cols };
}
