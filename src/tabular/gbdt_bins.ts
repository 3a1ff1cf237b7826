/**
 * Quantile bins for the histogram GBDT, fit on training rows only. A feature with at most `maxBins` distinct
 * training values gets one bin per value (edges at the midpoints between neighbours); otherwise the edges are
 * the values at the q/maxBins quantiles (deduplicated). Bin b holds x ≤ edges[b] (the first such b), the last
 * real bin holds x above every edge, and bin `edges.length + 1` is missing (NaN). Rows are stored row-major
 * as *slots*: the bin plus the feature's offset in one flat histogram, so the hot loop has no branch; a
 * column-major copy of the bins (one byte each) serves partitioning, which reads one feature of many rows.
 *
 * @module
 */
import type { Matrix } from "./encode.ts";

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

/** Edges per feature from the rows of X (all rows of X are training rows). */
export function fitEdges(X: Matrix, maxBins: number): Float64Array[] {
  if (!(maxBins >= 2 && maxBins <= 255)) throw new RangeError(`Cannot use ${maxBins} bins: use 2–255`);
  return X.columns.map((col) => {
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
  });
}

/** The bin of x among sorted `edges`: the first b with x ≤ edges[b], else edges.length; NaN → missing bin. */
export function binOf(edges: Float64Array, x: number): number {
  if (Number.isNaN(x)) return edges.length + 1;
  let lo = 0, hi = edges.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (x <= edges[mid]!) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Bins every row of X with fitted edges. */
export function binRows(X: Matrix, edges: Float64Array[]): Binned {
  const p = X.columns.length, n = X.nRows;
  const nBins = Int32Array.from(edges, (e) => e.length + 1);
  const offset = new Int32Array(p + 1);
  for (let f = 0; f < p; f++) offset[f + 1] = offset[f]! + nBins[f]! + 1;
  const slots = offset[p]! <= 65536 ? new Uint16Array(n * p) : new Int32Array(n * p);
  const cols = edges.map(() => new Uint8Array(n));
  for (let f = 0; f < p; f++) {
    const col = X.columns[f]!, e = edges[f]!, o = offset[f]!, c = cols[f]!;
    for (let r = 0; r < n; r++) {
      const b = binOf(e, col[r]!);
      c[r] = b;
      slots[r * p + f] = o + b;
    }
  }
  return { p, nRows: n, slots, nBins, offset, cols };
}
