/**
 * Two-thread GBDT fits (opt-in: `fitGbdt(…, { threads: 2 })`): the fitting thread and one helper worker
 * (gbdt_worker.ts) share the bins, gradients, scores and row order, and split each large job in two. A
 * histogram fill splits the features (every bin still sums its rows in the node's row order); a partition,
 * the gradients and the score update split the rows, whose results depend on each row alone (the two halves
 * of a stable partition are joined by moving one block). Both threads run the same loops
 * (gbdt_kernels.ts), so the model is bit-identical to a one-thread fit. A job's second half goes to whichever
 * thread claims it first: when the helper has not woken by the time the fitting thread is done with its half
 * (a busy machine), the fitting thread does the other half too, so a late helper never costs a wait. The
 * helper is started on the first parallel fit, kept between fits (as a thread pool would be) and closed after
 * a second idle, or at once by `closeGbdtThreads()`.
 *
 * @module
 */
import type { Matrix } from "./encode.ts";
import { binColumn, binLayout, type Binned, writeSlots } from "./gbdt_bins.ts";
import { CellScratch } from "./gbdt_cells.ts";
import { type Bind, bindArrays, CTL, JOB, signal, TASKS, waitFor } from "./gbdt_handoff.ts";
import { addLeaves, fill2, fill3, fillSome, partitionRows } from "./gbdt_kernels.ts";
import { gradients } from "./gbdt_loss.ts";
import type { Task } from "./target.ts";

/** Nodes with fewer rows are split and filled on one thread: handing them over costs more than it saves. */
export const PARALLEL_MIN_ROWS = 2048;

/** A grown tree's leaves (gbdt_tree.ts BinTree has them): each leaf's rows of the grown sample and value. */
export interface GrownLeaves {
  leafStart: number[];
  leafEnd: number[];
  leafValue: number[];
}

interface Helper {
  worker: Worker;
  ctl: Int32Array;
  /** The last job's number (ctl[job]). */
  job: number;
}

let helper: Helper | null = null;
let idle: ReturnType<typeof setTimeout> | undefined;

/** Ends the helper thread now (it is otherwise ended a second after the last parallel fit). */
export function closeGbdtThreads(): void {
  if (idle !== undefined) clearTimeout(idle);
  idle = undefined;
  helper?.worker.terminate();
  helper = null;
}

/**
 * After the fitting thread had to sleep waiting for the helper (which then lost its processor in mid-job: a
 * busy machine), it does this many jobs alone rather than wait like that again and again.
 */
const SOLO_JOBS = 64;

/** Waits until ctl[i] === want (the helper finished job `want`); true when it had to sleep. */
function awaitHelper(h: Helper, i: number, want: number): boolean {
  const waited = waitFor(h.ctl, i, want, false, CTL.mainSleeps, 60_000);
  if (waited === "timed-out") {
    closeGbdtThreads();
    throw new Error("Cannot fit the GBDT on two threads: the helper thread stopped answering");
  }
  return waited === "slept";
}

/** A fit's shared arrays, and the jobs it splits between the two threads. */
export class ParallelFit {
  /** The bin edges fit on the training rows, as `binTraining` finds them. */
  readonly edges: Float64Array[];
  /** The binned training rows, in shared arrays both threads read. */
  readonly data: Binned;
  readonly gh: Float64Array[];
  readonly idx: Int32Array;
  /** Raw scores, row-major, K wide. */
  readonly F: Float64Array;
  private readonly y: Float64Array;
  private readonly b: Omit<Bind, "ctl">;
  private readonly out: Float64Array;
  private readonly feats: Int32Array;
  private readonly leafStart: Int32Array;
  private readonly leafEnd: Int32Array;
  private readonly leafValue: Float64Array;
  private readonly scratch: Int32Array;
  private readonly left = new Uint8Array(256);
  private readonly h: Helper;
  private readonly args: Int32Array;
  /** Jobs still to do alone (see SOLO_JOBS). */
  private solo = 0;

  /** Starts a fit on the rows of X: binds the helper, then bins X on both threads. */
  constructor(
    X: Matrix,
    maxBins: number,
    y: ArrayLike<number>,
    private readonly task: Task,
    private readonly K: number,
    m: number,
    maxLeaves: number,
    /** False leaves every second half to the helper, however late (tests check the helper's bits so). */
    private readonly stealing = true,
  ) {
    const n = X.nRows, p = X.columns.length;
    const b = this.b = bindArrays(n, p, m, K, maxBins, maxLeaves, TASKS.indexOf(task));
    this.gh = b.gh.map((a) => new Float64Array(a));
    this.idx = new Int32Array(b.idx);
    this.F = new Float64Array(b.F);
    this.y = new Float64Array(b.y);
    this.y.set(y);
    this.out = new Float64Array(b.out);
    this.feats = new Int32Array(b.feats);
    this.leafStart = new Int32Array(b.leafStart);
    this.leafEnd = new Int32Array(b.leafEnd);
    this.leafValue = new Float64Array(b.leafValue);
    this.scratch = new Int32Array(m);
    if (idle !== undefined) clearTimeout(idle);
    idle = undefined;
    helper ??= {
      worker: new Worker(new URL("./gbdt_worker.ts", import.meta.url), { type: "module" }),
      ctl: new Int32Array(new SharedArrayBuffer(4 * CTL.size)),
      job: 0,
    };
    this.h = helper;
    this.args = this.h.ctl.subarray(CTL.arg);
    // No wait for the helper to take the message (a new worker takes tens of milliseconds to start): until it
    // does, the fitting thread does every job alone.
    this.h.worker.postMessage({ ...b, ctl: this.h.ctl.buffer });
    const { edges, data } = this.bin(X, maxBins);
    this.edges = edges, this.data = data;
  }

  /**
   * Bins X as `binTraining` does: each thread fits the edges and bins of half the columns (the helper from
   * its shared copy of them), then writes the row-major slots of half the rows.
   */
  private bin(X: Matrix, maxBins: number): { edges: Float64Array[]; data: Binned } {
    const { b } = this, n = X.nRows, p = X.columns.length, half = p >> 1;
    const cols = Array.from({ length: p }, (_, f) => new Uint8Array(b.cols, f * n, n));
    for (let f = half; f < p; f++) new Float64Array(b.raw, 8 * n * (f - half), n).set(X.columns[f]!);
    this.args.set([half, p]);
    let job = this.post(JOB.bin);
    const scratch = new CellScratch(n), edges: Float64Array[] = [];
    for (let f = 0; f < half; f++) edges.push(binColumn(X.columns[f]!, maxBins, scratch, cols[f]!));
    if (this.steal(job)) {
      for (let f = half; f < p; f++) edges.push(binColumn(X.columns[f]!, maxBins, scratch, cols[f]!));
    } else {
      this.join(job!, false);
      const all = new Float64Array(b.edges), count = new Int32Array(b.edgeCount);
      for (let f = half; f < p; f++) edges.push(all.slice(f * maxBins, f * maxBins + count[f]!));
    }
    const { nBins, offset } = binLayout(edges);
    new Int32Array(b.offset).set(offset), new Int32Array(b.nBins).set(nBins);
    const wide = offset[p]! > 65536, mid = n >> 1;
    const slots = wide ? new Int32Array(b.slots, 0, n * p) : new Uint16Array(b.slots, 0, n * p);
    this.args.set([mid, n]);
    job = this.post(JOB.slots);
    writeSlots(slots, cols, offset, 0, mid);
    if (this.steal(job)) writeSlots(slots, cols, offset, mid, n);
    else this.join(job!, false);
    return { edges, data: { p, nRows: n, slots, nBins, offset, cols } };
  }

  /** Posts a job (its arguments already in `args`) and returns its number, or null to do it alone. */
  private post(kind: number): number | null {
    if (this.solo > 0) {
      this.solo--;
      return null;
    }
    const { ctl } = this.h;
    ctl[CTL.kind] = kind;
    const job = this.h.job = (this.h.job + 1) | 0;
    signal(ctl, CTL.job, job, CTL.helperSleeps);
    return job;
  }

  /** True when the fitting thread takes the job's second half itself (not posted, or not yet claimed). */
  private steal(job: number | null): boolean {
    if (job === null) return true;
    return this.stealing &&
      Atomics.compareExchange(this.h.ctl, CTL.claim, (job - 1) | 0, job) === ((job - 1) | 0);
  }

  /** Waits for the helper to finish `job` (of a tree: binning jobs are too long to tell a late helper by). */
  private join(job: number, tree = true): void {
    if (awaitHelper(this.h, CTL.done, job) && tree && this.stealing) this.solo = SOLO_JOBS;
  }

  /**
   * Fills `hist` (zeroed) with rows idx[start..end) of gradient array `gh`, c channels per slot, over all
   * features or the ascending `feats`: the first half of the features here, the rest on the helper.
   */
  fill(
    hist: Float64Array,
    gh: Float64Array,
    start: number,
    end: number,
    c: number,
    feats: Int32Array | null,
  ) {
    const { slots, p, offset } = this.data, idx = this.idx;
    const nf = feats ? feats.length : p, half = nf >> 1;
    const at = (j: number) => (feats ? feats[j]! : j);
    const lo = offset[at(half)]! * c, hi = offset[at(nf - 1) + 1]! * c;
    const part = (h: Float64Array, a: number, b: number) => {
      if (feats) fillSome(h, slots, p, gh, idx, start, end, feats, a, b, c);
      else if (c === 3) fill3(h, slots, p, gh, idx, start, end, a, b);
      else fill2(h, slots, p, gh, idx, start, end, a, b);
    };
    if (half === 0) return part(hist, 0, nf);
    if (feats) this.feats.set(feats);
    const wide = slots instanceof Int32Array ? 1 : 0;
    this.args.set([this.gh.indexOf(gh), start, end, c, feats ? 1 : 0, half, nf, lo, hi, wide]);
    const job = this.post(JOB.fill);
    part(hist, 0, half);
    if (this.steal(job)) return part(hist, half, nf);
    this.join(job!);
    hist.set(this.out.subarray(lo, hi), lo);
  }

  /**
   * Stable partition of idx[start..end) on feature f (bins ≤ bin left, the missing bin by `missingLeft`):
   * each thread partitions half the rows, then the first half's right block and the second half's left
   * block swap places. Returns where the right part begins.
   */
  partition(f: number, bin: number, missingLeft: boolean, start: number, end: number): number {
    const { cols, nBins } = this.data, { idx, scratch } = this;
    const mid = (start + end) >> 1;
    this.args.set([f, bin, missingLeft ? 1 : 0, mid, end]);
    const job = this.post(JOB.partition);
    const la = partitionRows(cols[f]!, nBins[f]!, bin, missingLeft, idx, scratch, this.left, start, mid);
    let lb: number;
    if (this.steal(job)) {
      lb = partitionRows(cols[f]!, nBins[f]!, bin, missingLeft, idx, scratch, this.left, mid, end);
    } else {
      this.join(job!);
      lb = this.h.ctl[CTL.result]!;
    }
    // idx[start + la .. mid) holds the first half's right rows, idx[mid .. mid + lb) the second's left rows.
    const a = start + la, ra = mid - a;
    if (ra > 0 && lb > 0) {
      if (lb <= ra) {
        scratch.set(idx.subarray(mid, mid + lb));
        idx.copyWithin(a + lb, a, mid);
        idx.set(scratch.subarray(0, lb), a);
      } else {
        scratch.set(idx.subarray(a, mid));
        idx.copyWithin(a, mid, mid + lb);
        idx.set(scratch.subarray(0, ra), a + lb);
      }
    }
    return a + lb;
  }

  /** The gradients of every row (as gbdt_loss.ts `gradients`), half the rows on each thread. */
  gradients(): void {
    const { task, y, F, K, gh } = this, n = y.length, mid = n >> 1;
    this.args.set([mid, n]);
    const job = this.post(JOB.gradients);
    gradients(task, y, F, K, gh, 0, mid);
    if (this.steal(job)) gradients(task, y, F, K, gh, mid, n);
    else this.join(job!);
  }

  /** Adds tree k's leaf values to the scores of the rows it grew on (all of idx), half on each thread. */
  addLeaves(tree: GrownLeaves, k: number): void {
    const L = tree.leafStart.length, m = this.idx.length, mid = m >> 1;
    this.leafStart.set(tree.leafStart), this.leafEnd.set(tree.leafEnd), this.leafValue.set(tree.leafValue);
    this.args.set([k, L, mid, m]);
    const job = this.post(JOB.leaves);
    const { F, K, idx, leafStart, leafEnd, leafValue } = this;
    addLeaves(F, K, k, idx, leafStart, leafEnd, leafValue, L, 0, mid);
    if (this.steal(job)) addLeaves(F, K, k, idx, leafStart, leafEnd, leafValue, L, mid, m);
    else this.join(job!);
  }

  /** Hands the helper back (to be ended after a second unless another fit takes it). */
  release(): void {
    this.solo = 0;
    awaitHelper(this.h, CTL.done, this.post(JOB.release)!);
    idle = setTimeout(closeGbdtThreads, 1000);
  }
}
