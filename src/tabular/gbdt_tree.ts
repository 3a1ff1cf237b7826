/**
 * One regression tree on gradients and hessians, grown level by level over binned rows. A node's histogram
 * sums (g, h) per bin — plus a row count only when `minSamplesLeaf` > 1 and hessians vary, because the third
 * channel costs a third more memory traffic in the hottest loop (with unit hessians the h sum *is* the count;
 * with varying ones and `minSamplesLeaf` = 1 a side is empty exactly when its h sum is 0, as every h > 0).
 * Only the smaller child's histogram is built from rows, the larger one is the parent's minus it (histogram
 * subtraction). A split (feature, bin) sends bins ≤ bin left and tries the missing bin on
 * each side, keeping the better (the learned default direction); the gain is the Newton score
 * G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ), ties going to the first feature, then the lowest bin, then
 * missing-right. A leaf's value is −G/(H+λ), times the learning rate. With column subsampling a tree reads,
 * fills and splits on its drawn features only; children at the depth limit only need their (g, h) totals, so
 * only the first usable feature's bins are filled for them (the same sums, at 1/p of the cost).
 *
 * @module
 */
import type { Binned } from "./gbdt_bins.ts";
import { fill2, fill3, fillSome, partitionRows } from "./gbdt_kernels.ts";
import { PARALLEL_MIN_ROWS, type ParallelFit } from "./gbdt_threads.ts";

export interface GrowOptions {
  maxDepth: number;
  minSamplesLeaf: number;
  /** Smallest hessian sum a child may have. */
  minChildWeight: number;
  l2: number;
  rate: number;
  /** Every hessian is 1 (squared error): counts are read off the h channel. */
  unitHessian: boolean;
  /** The features this tree may use, ascending; null = all. */
  features?: Int32Array | null;
  /** Two-thread fills and partitions for nodes of PARALLEL_MIN_ROWS rows or more. */
  parallel?: ParallelFit | null;
}

/** A grown tree over bins: `feature` −1 marks a leaf. */
export interface BinTree {
  feature: number[];
  bin: number[];
  missingLeft: boolean[];
  left: number[];
  right: number[];
  value: number[];
  /** Leaf i holds rows idx[leafStart[i] .. leafEnd[i]) of the grown sample, with value leafValue[i]. */
  leafStart: number[];
  leafEnd: number[];
  leafValue: number[];
}

interface Open {
  id: number;
  start: number;
  end: number;
  hist: Float64Array;
}

interface Best {
  f: number;
  bin: number;
  missingLeft: boolean;
}

/** The histogram layout one tree uses: channels per slot, and how a bin's row count is known. */
interface Layout {
  /** 3 when a count channel is kept, else 2. */
  c: number;
  count: "channel" | "hessian" | "nonzero";
}

/** Grows a tree on the rows `idx` (reordered in place) with gradient/hessian pairs gh[2r], gh[2r + 1]. */
export function growTree(
  data: Binned,
  gh: Float64Array,
  idx: Int32Array,
  o: GrowOptions,
  pool: Float64Array[] = [],
): BinTree {
  const t: BinTree = {
    feature: [],
    bin: [],
    missingLeft: [],
    left: [],
    right: [],
    value: [],
    leafStart: [],
    leafEnd: [],
    leafValue: [],
  };
  const layout: Layout = o.unitHessian
    ? { c: 2, count: "hessian" }
    : o.minSamplesLeaf > 1
    ? { c: 3, count: "channel" }
    : { c: 2, count: "nonzero" };
  const size = data.offset[data.p]! * layout.c;
  const feats = o.features ?? null;
  const f0 = feats ? feats[0]! : 0;
  const [lo0, hi0] = [data.offset[f0]! * layout.c, data.offset[f0 + 1]! * layout.c];
  const take = () => {
    const h = pool.pop();
    return h && h.length === size ? h.fill(0) : new Float64Array(size);
  };
  const leaf = (node: Open) => {
    const { g, h } = totals(node.hist, data, f0, layout.c);
    const v = (-g / (h + o.l2)) * o.rate;
    t.value[node.id] = v;
    t.leafStart.push(node.start), t.leafEnd.push(node.end), t.leafValue.push(v);
    pool.push(node.hist);
  };
  const add = () => {
    t.feature.push(-1), t.bin.push(0), t.missingLeft.push(false), t.left.push(-1), t.right.push(-1);
    t.value.push(0);
    return t.feature.length - 1;
  };
  const { slots, p } = data, par = o.parallel ?? null;
  const scratch = new Int32Array(idx.length), goesLeft = new Uint8Array(256);
  const fill = (hist: Float64Array, start: number, end: number) => {
    if (par && end - start >= PARALLEL_MIN_ROWS) par.fill(hist, gh, start, end, layout.c, feats);
    else if (feats) fillSome(hist, slots, p, gh, idx, start, end, feats, 0, feats.length, layout.c);
    else if (layout.c === 3) fill3(hist, slots, p, gh, idx, start, end, 0, p);
    else fill2(hist, slots, p, gh, idx, start, end, 0, p);
  };
  const split = (start: number, end: number, s: Best) => {
    if (par && end - start >= PARALLEL_MIN_ROWS) return par.partition(s.f, s.bin, s.missingLeft, start, end);
    const col = data.cols[s.f]!, missing = data.nBins[s.f]!;
    return start + partitionRows(col, missing, s.bin, s.missingLeft, idx, scratch, goesLeft, start, end);
  };
  const rootHist = take();
  fill(rootHist, 0, idx.length);
  let level: Open[] = [{ id: add(), start: 0, end: idx.length, hist: rootHist }];
  for (let depth = 0; depth < o.maxDepth && level.length; depth++) {
    const next: Open[] = [];
    for (const node of level) {
      const best = node.end - node.start >= 2 * o.minSamplesLeaf
        ? bestSplit(data, node, o, layout, feats)
        : null;
      if (!best) {
        leaf(node);
        continue;
      }
      const mid = split(node.start, node.end, best);
      const [l, r] = [add(), add()];
      t.feature[node.id] = best.f, t.bin[node.id] = best.bin, t.missingLeft[node.id] = best.missingLeft;
      t.left[node.id] = l, t.right[node.id] = r;
      const smallLeft = mid - node.start <= node.end - mid;
      const small = take();
      const [from, to] = smallLeft ? [node.start, mid] : [mid, node.end];
      // Children at the depth limit become leaves, which read only feature f0's bins (their totals).
      const lastLevel = depth === o.maxDepth - 1;
      if (lastLevel) fillOne(small, data, gh, idx, from, to, f0, layout.c);
      else fill(small, from, to);
      const big = node.hist;
      const [a, b] = lastLevel ? [lo0, hi0] : [0, size];
      for (let s = a; s < b; s++) big[s]! -= small[s]!;
      const [lh, rh] = smallLeft ? [small, big] : [big, small];
      next.push({ id: l, start: node.start, end: mid, hist: lh });
      next.push({ id: r, start: mid, end: node.end, hist: rh });
    }
    level = next;
  }
  for (const node of level) leaf(node);
  return t;
}

/** Adds rows idx[start..end) into the slots of feature f alone, read from its bin column. */
function fillOne(
  hist: Float64Array,
  data: Binned,
  gh: Float64Array,
  idx: Int32Array,
  start: number,
  end: number,
  f: number,
  c: number,
): void {
  const col = data.cols[f]!, o = data.offset[f]!;
  if (c === 3) {
    for (let t = start; t < end; t++) {
      const r = idx[t]!, s = (o + col[r]!) * 3;
      hist[s]! += gh[2 * r]!;
      hist[s + 1]! += gh[2 * r + 1]!;
      hist[s + 2]! += 1;
    }
    return;
  }
  for (let t = start; t < end; t++) {
    const r = idx[t]!, s = (o + col[r]!) << 1;
    hist[s]! += gh[2 * r]!;
    hist[s + 1]! += gh[2 * r + 1]!;
  }
}

/** Gradient and hessian totals over feature f's bins (every row falls in exactly one of them). */
function totals(hist: Float64Array, data: Binned, f: number, c: number): { g: number; h: number } {
  let g = 0, h = 0;
  for (let s = data.offset[f]!; s < data.offset[f + 1]!; s++) {
    g += hist[s * c]!;
    h += hist[s * c + 1]!;
  }
  return { g, h };
}

function bestSplit(
  data: Binned,
  node: Open,
  o: GrowOptions,
  layout: Layout,
  feats: Int32Array | null,
): Best | null {
  const { hist } = node;
  const { c } = layout;
  const lam = o.l2, minLeaf = o.minSamplesLeaf, minH = o.minChildWeight;
  const n = node.end - node.start;
  const exact = layout.count !== "nonzero";
  let best: Best | null = null;
  let bestGain = 1e-12;
  const nf = feats ? feats.length : data.p;
  for (let j = 0; j < nf; j++) {
    const f = feats ? feats[j]! : j;
    const off = data.offset[f]!, nb = data.nBins[f]!;
    // Totals summed over this feature's own bins, so "everything went left" leaves exactly 0 on the right.
    const { g: G, h: H } = totals(hist, data, f, c);
    const parent = (G * G) / (H + lam);
    const ms = (off + nb) * c;
    const gm = hist[ms]!, hm = hist[ms + 1]!;
    const cm = layout.count === "channel" ? hist[ms + 2]! : exact ? hm : hm > 0 ? 1 : 0;
    let gl = 0, hl = 0, cl = 0;
    const last = cm > 0 ? nb - 1 : nb - 2;
    for (let b = 0; b <= last; b++) {
      const s = (off + b) * c;
      gl += hist[s]!, hl += hist[s + 1]!;
      if (layout.count === "channel") cl += hist[s + 2]!;
      else cl = exact ? hl : hl > 0 ? 1 : 0;
      if (cl === 0) continue;
      // Missing goes right: left holds only the bins ≤ b.
      let hr = H - hl;
      let cr = exact ? n - cl : hr > 0 ? 1 : 0;
      if (cl >= minLeaf && cr >= minLeaf && hl >= minH && hr >= minH) {
        const gr = G - gl;
        const gain = (gl * gl) / (hl + lam) + (gr * gr) / (hr + lam) - parent;
        if (gain > bestGain) {
          bestGain = gain;
          best = { f, bin: b, missingLeft: cm === 0 && (exact ? cl >= cr : hl >= hr) };
        }
      }
      if (cm === 0 || b === nb - 1) continue;
      // Missing goes left.
      const gl2 = gl + gm, hl2 = hl + hm;
      const cl2 = exact ? cl + cm : 1;
      hr = H - hl2;
      cr = exact ? n - cl2 : hr > 0 ? 1 : 0;
      if (cl2 >= minLeaf && cr >= minLeaf && hl2 >= minH && hr >= minH) {
        const gr = G - gl2;
        const gain = (gl2 * gl2) / (hl2 + lam) + (gr * gr) / (hr + lam) - parent;
        if (gain > bestGain) {
          bestGain = gain;
          best = { f, bin: b, missingLeft: true };
        }
      }
    }
  }
  return best;
}

/** The leaf value for binned row r. */
export function predictBinned(t: BinTree, data: Binned, r: number): number {
  let i = 0;
  while (t.feature[i]! >= 0) {
    const f = t.feature[i]!;
    const b = data.cols[f]![r]!;
    const left = b === data.nBins[f]! ? t.missingLeft[i]! : b <= t.bin[i]!;
    i = left ? t.left[i]! : t.right[i]!;
  }
  return t.value[i]!;
}
