/**
 * One regression tree on gradients and hessians, grown level by level over binned rows. A node's histogram
 * sums (g, h, count) per bin; only the smaller child's is built from rows, the larger one is the parent's
 * minus it (histogram subtraction). A split (feature, bin) sends bins ≤ bin left and tries the missing bin on
 * each side, keeping the better (the learned default direction); the gain is the Newton score
 * G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ), ties going to the first feature, then the lowest bin, then
 * missing-right. A leaf's value is −G/(H+λ), times the learning rate.
 *
 * @module
 */
import type { Binned } from "./gbdt_bins.ts";

export interface GrowOptions {
  maxDepth: number;
  minSamplesLeaf: number;
  /** Smallest hessian sum a child may have. */
  minChildWeight: number;
  l2: number;
  rate: number;
}

/** A grown tree over bins: `feature` −1 marks a leaf. */
export interface BinTree {
  feature: number[];
  bin: number[];
  missingLeft: boolean[];
  left: number[];
  right: number[];
  value: number[];
}

interface Open {
  id: number;
  start: number;
  end: number;
  g: number;
  h: number;
  hist: Float64Array;
}

interface Best {
  gain: number;
  f: number;
  bin: number;
  missingLeft: boolean;
}

/** Grows a tree on the rows `idx` (reordered in place) with gradients `grad` and hessians `hess`. */
export function growTree(
  data: Binned,
  grad: Float64Array,
  hess: Float64Array,
  idx: Int32Array,
  o: GrowOptions,
  pool: Float64Array[] = [],
): BinTree {
  const t: BinTree = { feature: [], bin: [], missingLeft: [], left: [], right: [], value: [] };
  const size = data.offset[data.p]! * 3;
  const take = () => pool.pop()?.fill(0) ?? new Float64Array(size);
  const leaf = (node: Open) => {
    t.value[node.id] = (-node.g / (node.h + o.l2)) * o.rate;
    pool.push(node.hist);
  };
  const add = () => {
    t.feature.push(-1), t.bin.push(0), t.missingLeft.push(false), t.left.push(-1), t.right.push(-1);
    t.value.push(0);
    return t.feature.length - 1;
  };
  const scratch = new Int32Array(idx.length);
  const rootHist = take();
  fill(rootHist, data, grad, hess, idx, 0, idx.length);
  let g = 0, h = 0;
  for (let i = 0; i < idx.length; i++) {
    g += grad[idx[i]!]!;
    h += hess[idx[i]!]!;
  }
  let level: Open[] = [{ id: add(), start: 0, end: idx.length, g, h, hist: rootHist }];
  for (let depth = 0; depth < o.maxDepth && level.length; depth++) {
    const next: Open[] = [];
    for (const node of level) {
      const best = node.end - node.start >= 2 * o.minSamplesLeaf ? bestSplit(data, node, o) : null;
      if (!best) {
        leaf(node);
        continue;
      }
      const mid = partition(data, idx, scratch, node.start, node.end, best);
      const [l, r] = [add(), add()];
      t.feature[node.id] = best.f, t.bin[node.id] = best.bin, t.missingLeft[node.id] = best.missingLeft;
      t.left[node.id] = l, t.right[node.id] = r;
      const smallLeft = mid - node.start <= node.end - mid;
      const small = take();
      if (smallLeft) fill(small, data, grad, hess, idx, node.start, mid);
      else fill(small, data, grad, hess, idx, mid, node.end);
      const big = node.hist;
      for (let s = 0; s < size; s++) big[s]! -= small[s]!;
      const sums = (hist: Float64Array) => totals(hist, data, best.f);
      const [lh, rh] = smallLeft ? [small, big] : [big, small];
      next.push({ id: l, start: node.start, end: mid, ...sums(lh), hist: lh });
      next.push({ id: r, start: mid, end: node.end, ...sums(rh), hist: rh });
    }
    level = next;
  }
  for (const node of level) leaf(node);
  return t;
}

/** Adds rows idx[start..end) into `hist` as (g, h, count) triples per slot. */
function fill(
  hist: Float64Array,
  data: Binned,
  grad: Float64Array,
  hess: Float64Array,
  idx: Int32Array,
  start: number,
  end: number,
): void {
  const { p, slots } = data;
  for (let t = start; t < end; t++) {
    const r = idx[t]!;
    const g = grad[r]!, h = hess[r]!;
    const base = r * p;
    for (let f = 0; f < p; f++) {
      const s = slots[base + f]! * 3;
      hist[s]! += g;
      hist[s + 1]! += h;
      hist[s + 2]! += 1;
    }
  }
}

/** A node's gradient and hessian totals, read off one feature's bins (every row falls in exactly one). */
function totals(hist: Float64Array, data: Binned, f: number): { g: number; h: number } {
  let g = 0, h = 0;
  for (let s = data.offset[f]!; s < data.offset[f + 1]!; s++) {
    g += hist[s * 3]!;
    h += hist[s * 3 + 1]!;
  }
  return { g, h };
}

function bestSplit(data: Binned, node: Open, o: GrowOptions): Best | null {
  const { hist } = node;
  const lam = o.l2, minLeaf = o.minSamplesLeaf, minH = o.minChildWeight;
  const n = node.end - node.start;
  const G = node.g, H = node.h;
  const parent = (G * G) / (H + lam);
  let best: Best | null = null;
  let bestGain = 1e-12;
  for (let f = 0; f < data.p; f++) {
    const off = data.offset[f]!, nb = data.nBins[f]!;
    const ms = (off + nb) * 3;
    const gm = hist[ms]!, hm = hist[ms + 1]!, cm = hist[ms + 2]!;
    let gl = 0, hl = 0, cl = 0;
    const last = cm > 0 ? nb - 1 : nb - 2;
    for (let b = 0; b <= last; b++) {
      const s = (off + b) * 3;
      gl += hist[s]!, hl += hist[s + 1]!, cl += hist[s + 2]!;
      if (cl === 0) continue;
      // Missing goes right: left holds only the bins ≤ b.
      let cr = n - cl;
      if (cl >= minLeaf && cr >= minLeaf && hl >= minH && H - hl >= minH) {
        const gr = G - gl;
        const gain = (gl * gl) / (hl + lam) + (gr * gr) / (H - hl + lam) - parent;
        if (gain > bestGain) {
          bestGain = gain;
          best = { gain, f, bin: b, missingLeft: cm === 0 && cl >= cr };
        }
      }
      if (cm === 0 || b === nb - 1) continue;
      // Missing goes left.
      const gl2 = gl + gm, hl2 = hl + hm, cl2 = cl + cm;
      cr = n - cl2;
      if (cl2 >= minLeaf && cr >= minLeaf && hl2 >= minH && H - hl2 >= minH) {
        const gr = G - gl2;
        const gain = (gl2 * gl2) / (hl2 + lam) + (gr * gr) / (H - hl2 + lam) - parent;
        if (gain > bestGain) {
          bestGain = gain;
          best = { gain, f, bin: b, missingLeft: true };
        }
      }
    }
  }
  return best;
}

/** Stable partition of idx[start..end): rows going left first; returns where the right part begins. */
function partition(
  data: Binned,
  idx: Int32Array,
  scratch: Int32Array,
  start: number,
  end: number,
  s: Best,
): number {
  const { p, slots } = data;
  const off = data.offset[s.f]!, missing = data.nBins[s.f]!;
  let w = start, nr = 0;
  for (let t = start; t < end; t++) {
    const r = idx[t]!;
    const b = slots[r * p + s.f]! - off;
    if (b === missing ? s.missingLeft : b <= s.bin) idx[w++] = r;
    else scratch[nr++] = r;
  }
  idx.set(scratch.subarray(0, nr), w);
  return w;
}

/** The leaf value for binned row r. */
export function predictBinned(t: BinTree, data: Binned, r: number): number {
  let i = 0;
  const base = r * data.p;
  while (t.feature[i]! >= 0) {
    const f = t.feature[i]!;
    const b = data.slots[base + f]! - data.offset[f]!;
    const left = b === data.nBins[f]! ? t.missingLeft[i]! : b <= t.bin[i]!;
    i = left ? t.left[i]! : t.right[i]!;
  }
  return t.value[i]!;
}
