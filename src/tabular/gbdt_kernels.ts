/**
 * The GBDT's hot loops over a range of rows or features, shared by the fitting thread (gbdt_tree.ts,
 * gbdt.ts) and the helper thread of a two-thread fit (gbdt_worker.ts), so both threads run the same
 * specialised code and any split of the work adds the same numbers in the same order as one thread.
 *
 * @module
 */

/** Row-major bins: `slots[r * p + f]` = the histogram slot of feature f for row r. */
export type Slots = Uint16Array | Int32Array;

/**
 * Adds rows idx[start..end) into `hist` as (g, h) pairs in the slots of features [from, to). A row's
 * features have distinct slots, so two features' sums are read before either is written: the same
 * additions, without each store waiting on the load before it.
 */
export function fill2(
  hist: Float64Array,
  slots: Slots,
  p: number,
  gh: Float64Array,
  idx: Int32Array,
  start: number,
  end: number,
  from: number,
  to: number,
): void {
  const pairs = from + ((to - from) & ~1);
  for (let t = start; t < end; t++) {
    const r = idx[t]!;
    const g = gh[2 * r]!, h = gh[2 * r + 1]!;
    const base = r * p;
    let f = from;
    for (; f < pairs; f += 2) {
      const s = slots[base + f]! << 1, u = slots[base + f + 1]! << 1;
      const gs = hist[s]!, hs = hist[s + 1]!, gu = hist[u]!, hu = hist[u + 1]!;
      hist[s] = gs + g;
      hist[s + 1] = hs + h;
      hist[u] = gu + g;
      hist[u + 1] = hu + h;
    }
    if (f < to) {
      const s = slots[base + f]! << 1;
      hist[s]! += g;
      hist[s + 1]! += h;
    }
  }
}

/** Adds rows idx[start..end) into `hist` as (g, h, count) triples in the slots of features [from, to), as fill2. */
export function fill3(
  hist: Float64Array,
  slots: Slots,
  p: number,
  gh: Float64Array,
  idx: Int32Array,
  start: number,
  end: number,
  from: number,
  to: number,
): void {
  const pairs = from + ((to - from) & ~1);
  for (let t = start; t < end; t++) {
    const r = idx[t]!;
    const g = gh[2 * r]!, h = gh[2 * r + 1]!;
    const base = r * p;
    let f = from;
    for (; f < pairs; f += 2) {
      const s = slots[base + f]! * 3, u = slots[base + f + 1]! * 3;
      const gs = hist[s]!,
        hs = hist[s + 1]!,
        cs = hist[s + 2]!,
        gu = hist[u]!,
        hu = hist[u + 1]!,
        cu = hist[u + 2]!;
      hist[s] = gs + g;
      hist[s + 1] = hs + h;
      hist[s + 2] = cs + 1;
      hist[u] = gu + g;
      hist[u + 1] = hu + h;
      hist[u + 2] = cu + 1;
    }
    if (f < to) {
      const s = slots[base + f]! * 3;
      hist[s]! += g;
      hist[s + 1]! += h;
      hist[s + 2]! += 1;
    }
  }
}

/** Adds rows idx[start..end) into the slots of features feats[a..b) only (the sums fill2/fill3 make there). */
export function fillSome(
  hist: Float64Array,
  slots: Slots,
  p: number,
  gh: Float64Array,
  idx: Int32Array,
  start: number,
  end: number,
  feats: Int32Array,
  a: number,
  b: number,
  c: number,
): void {
  for (let t = start; t < end; t++) {
    const r = idx[t]!;
    const g = gh[2 * r]!, h = gh[2 * r + 1]!;
    const base = r * p;
    for (let j = a; j < b; j++) {
      const s = slots[base + feats[j]!]! * c;
      hist[s]! += g;
      hist[s + 1]! += h;
      if (c === 3) hist[s + 2]! += 1;
    }
  }
}

/**
 * Stable partition of idx[start..end) by one feature's bin column: rows whose bin goes left (bins ≤ `bin`,
 * and the missing bin when `missingLeft`) first. Returns how many went left; `scratch` holds the right side
 * on the way and `left` (256 entries) the per-bin direction.
 */
export function partitionRows(
  col: Uint8Array,
  missing: number,
  bin: number,
  missingLeft: boolean,
  idx: Int32Array,
  scratch: Int32Array,
  left: Uint8Array,
  start: number,
  end: number,
): number {
  for (let b = 0; b <= missing; b++) left[b] = b === missing ? (missingLeft ? 1 : 0) : b <= bin ? 1 : 0;
  // Every row is written to both sides and only one cursor moves, so the loop has no branch to mispredict
  // (idx[w] is already read, as w ≤ t).
  let w = start, nr = 0;
  for (let t = start; t < end; t++) {
    const r = idx[t]!;
    const go = left[col[r]!]!;
    idx[w] = r;
    scratch[nr] = r;
    w += go;
    nr += 1 - go;
  }
  idx.set(scratch.subarray(0, nr), w);
  return w - start;
}

/**
 * Adds each leaf's value to the raw scores F (K wide, output k) of its rows, for the positions [from, to)
 * of idx only: leaf l holds positions leafStart[l]..leafEnd[l).
 */
export function addLeaves(
  F: Float64Array,
  K: number,
  k: number,
  idx: Int32Array,
  leafStart: ArrayLike<number>,
  leafEnd: ArrayLike<number>,
  leafValue: ArrayLike<number>,
  leaves: number,
  from: number,
  to: number,
): void {
  for (let l = 0; l < leaves; l++) {
    const a = Math.max(from, leafStart[l]!), b = Math.min(to, leafEnd[l]!), v = leafValue[l]!;
    for (let t = a; t < b; t++) F[idx[t]! * K + k]! += v;
  }
}
