/**
 * Edges and bins of one training column without sorting the whole column, bit-identical to sorting it
 * (gbdt_bins.ts `columnEdges` and `binOf`). Each value goes to one of up to 4,096 equal-width cells between
 * the column's minimum and maximum; the cell of x never decreases as x grows, so the cells' counts give every
 * value's rank range. Then only the cells that hold a wanted order statistic (or, for a column with few
 * distinct values, the cells holding more than one value) are gathered and sorted. A row's bin is read off
 * its cell when the cell's smallest and largest values share a bin, else searched between those two bins.
 *
 * @module
 */

const MAX_CELLS = 4096;

/** Working arrays reused across the columns of one matrix. */
export class CellScratch {
  readonly cell: Int32Array;
  readonly buf: Float64Array;
  readonly count = new Int32Array(MAX_CELLS);
  readonly start = new Int32Array(MAX_CELLS);
  readonly at = new Int32Array(MAX_CELLS);
  readonly lo = new Float64Array(MAX_CELLS);
  readonly hi = new Float64Array(MAX_CELLS);
  readonly binLo = new Int32Array(MAX_CELLS);
  readonly binHi = new Int32Array(MAX_CELLS);
  readonly want = new Uint8Array(MAX_CELLS);
  constructor(n: number) {
    this.cell = new Int32Array(n);
    this.buf = new Float64Array(n);
  }
}

/**
 * The edges of column `col` (written as its bins into `bins`, missing = edges.length + 1), or null when the
 * column suits no cells (fewer than two distinct values, or a range too wide to divide) and must be sorted.
 */
export function cellEdgesAndBins(
  col: Float64Array,
  maxBins: number,
  s: CellScratch,
  bins: Uint8Array,
): Float64Array | null {
  const n = col.length;
  let m = 0, min = Infinity, max = -Infinity;
  for (let r = 0; r < n; r++) {
    const x = col[r]!;
    if (x !== x) continue;
    m++;
    if (x < min) min = x;
    if (x > max) max = x;
  }
  const span = max - min, C = Math.max(1, Math.min(MAX_CELLS, m >> 3)), scale = C / span;
  if (!(max > min) || !Number.isFinite(span) || !Number.isFinite(scale) || !(scale > 0)) return null;
  const { cell, count, lo, hi, want } = s;
  count.fill(0, 0, C), lo.fill(Infinity, 0, C), hi.fill(-Infinity, 0, C), want.fill(0, 0, C);
  for (let r = 0; r < n; r++) {
    const x = col[r]!;
    if (x !== x) {
      cell[r] = -1;
      continue;
    }
    const c = Math.min(C - 1, Math.floor((x - min) * scale));
    cell[r] = c;
    count[c]!++;
    if (x < lo[c]!) lo[c] = x;
    if (x > hi[c]!) hi[c] = x;
  }
  let lower = 0;
  for (let c = 0; c < C; c++) if (count[c]) lower += lo[c] === hi[c] ? 1 : 2;
  const edges = (lower <= maxBins ? fewValues(col, maxBins, s, C) : null) ?? quantiles(col, maxBins, s, C, m);
  binByCells(col, edges, s, C, bins);
  return edges;
}

/** Gathers the values of the wanted cells into s.buf, each cell's run sorted, from s.start[c]. */
function gather(col: Float64Array, s: CellScratch, C: number): void {
  const { cell, count, start, at, want, buf } = s;
  let acc = 0;
  for (let c = 0; c < C; c++) {
    start[c] = at[c] = acc;
    if (want[c]) acc += count[c]!;
  }
  for (let r = 0; r < col.length; r++) {
    const c = cell[r]!;
    if (c >= 0 && want[c]) buf[at[c]!++] = col[r]!;
  }
  for (let c = 0; c < C; c++) if (want[c]) buf.subarray(start[c]!, at[c]!).sort();
}

/** Midpoint edges when the column has at most maxBins distinct values, else null. */
function fewValues(col: Float64Array, maxBins: number, s: CellScratch, C: number): Float64Array | null {
  const { count, lo, hi, want, start, at, buf } = s;
  for (let c = 0; c < C; c++) want[c] = count[c] && lo[c] !== hi[c] ? 1 : 0;
  gather(col, s, C);
  const values: number[] = [];
  for (let c = 0; c < C; c++) {
    if (!count[c]) continue;
    if (!want[c]) values.push(lo[c]!);
    else {
      for (let i = start[c]!; i < at[c]!; i++) {
        if (i === start[c] || buf[i] !== buf[i - 1]) values.push(buf[i]!);
      }
    }
    if (values.length > maxBins) return null;
  }
  want.fill(0, 0, C);
  const edges = new Float64Array(values.length - 1);
  for (let i = 1; i < values.length; i++) edges[i - 1] = values[i - 1]! + (values[i]! - values[i - 1]!) / 2;
  return edges;
}

/** The deduplicated values at ranks floor(q · m / maxBins), q = 1 … maxBins − 1. */
function quantiles(col: Float64Array, maxBins: number, s: CellScratch, C: number, m: number): Float64Array {
  const { count, want, start, buf } = s;
  want.fill(0, 0, C);
  const rank = (q: number) => Math.floor((q * m) / maxBins);
  // First ranks of each cell, to find the cells holding the wanted ranks.
  const first = new Int32Array(C + 1);
  for (let c = 0; c < C; c++) first[c + 1] = first[c]! + count[c]!;
  const cellOf = new Int32Array(maxBins);
  for (let q = 1, c = 0; q < maxBins; q++) {
    while (first[c + 1]! <= rank(q)) c++;
    cellOf[q] = c, want[c] = 1;
  }
  gather(col, s, C);
  const edges: number[] = [];
  for (let q = 1; q < maxBins; q++) {
    const c = cellOf[q]!, x = buf[start[c]! + rank(q) - first[c]!]!;
    if (edges.length === 0 || x > edges[edges.length - 1]!) edges.push(x);
  }
  want.fill(0, 0, C);
  return Float64Array.from(edges);
}

/** bins[r] = the first b with col[r] ≤ edges[b] (else edges.length), missing = edges.length + 1. */
function binByCells(col: Float64Array, edges: Float64Array, s: CellScratch, C: number, bins: Uint8Array) {
  const { cell, count, lo, hi, binLo, binHi } = s;
  const L = edges.length;
  const below = (x: number) => {
    let a = 0, b = L;
    while (a < b) {
      const mid = (a + b) >>> 1;
      if (x <= edges[mid]!) b = mid;
      else a = mid + 1;
    }
    return a;
  };
  for (let c = 0; c < C; c++) if (count[c]) binLo[c] = below(lo[c]!), binHi[c] = below(hi[c]!);
  for (let r = 0; r < col.length; r++) {
    const c = cell[r]!;
    if (c < 0) {
      bins[r] = L + 1;
      continue;
    }
    let a = binLo[c]!, b = binHi[c]!;
    if (a !== b) {
      const x = col[r]!;
      while (a < b) {
        const mid = (a + b) >>> 1;
        if (x <= edges[mid]!) b = mid;
        else a = mid + 1;
      }
    }
    bins[r] = a;
  }
}
