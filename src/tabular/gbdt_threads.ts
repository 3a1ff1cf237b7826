/**
 * Two-thread histogram fills for the GBDT (opt-in: `fitGbdt(…, { threads: 2 })`). A node's rows are added
 * into the slots of the first half of the features by the fitting thread and into the rest by one helper
 * worker (gbdt_worker.ts) reading shared copies of the bins, gradients and row order. Every bin still sums
 * its rows in the node's row order, so the model is bit-identical to a one-thread fit. A job goes to whichever
 * thread claims it first: when the helper has not woken by the time the fitting thread is done with its half
 * (a busy machine), the fitting thread claims the other half too, so a late helper never costs a wait. The helper is started
 * on the first parallel fit, kept between fits (as a thread pool would be) and closed after a second idle, or
 * at once by `closeGbdtThreads()`.
 *
 * @module
 */
import type { Binned } from "./gbdt_bins.ts";

/** Nodes with fewer rows are filled on one thread: handing them over costs more than it saves. */
export const PARALLEL_MIN_ROWS = 2048;

interface Helper {
  worker: Worker;
  ctl: Int32Array;
  /** The last job's number (ctl[0]). */
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

/** Waits until ctl[i] ≥ want (the helper finished job `want`, or is bound). */
function awaitHelper(h: Helper, i: number, want: number): void {
  for (;;) {
    const now = Atomics.load(h.ctl, i);
    if (now >= want) return;
    if (Atomics.wait(h.ctl, i, now, 60_000) === "timed-out") {
      closeGbdtThreads();
      throw new Error("Cannot fit the GBDT on two threads: the helper thread stopped answering");
    }
  }
}

/** Posts the next job (its fields already stored) and returns its number. */
function post(h: Helper): number {
  const job = ++h.job;
  Atomics.store(h.ctl, 0, job);
  Atomics.notify(h.ctl, 0);
  return job;
}

/** A fit's shared arrays and the fill that splits the features between the two threads. */
export class ParallelFill {
  readonly gh: Float64Array[];
  readonly idx: Int32Array;
  private readonly out: Float64Array;
  private readonly from: number;
  private readonly h: Helper;

  constructor(private readonly data: Binned, K: number, m: number, c: number) {
    const n = data.nRows;
    const shared = (bytes: number) => new SharedArrayBuffer(bytes);
    this.gh = Array.from({ length: K }, () => new Float64Array(shared(16 * n)));
    this.idx = new Int32Array(shared(4 * m));
    this.out = new Float64Array(shared(8 * data.offset[data.p]! * c));
    this.from = data.p >> 1;
    const slots = data.slots instanceof Uint16Array
      ? new Uint16Array(shared(2 * data.slots.length))
      : new Int32Array(shared(4 * data.slots.length));
    slots.set(data.slots);
    if (idle !== undefined) clearTimeout(idle);
    idle = undefined;
    helper ??= {
      worker: new Worker(new URL("./gbdt_worker.ts", import.meta.url), { type: "module" }),
      ctl: new Int32Array(shared(64)),
      job: 0,
    };
    this.h = helper;
    Atomics.store(this.h.ctl, 9, 0);
    this.h.worker.postMessage({
      ctl: this.h.ctl.buffer,
      slots: slots.buffer,
      wide: !(slots instanceof Uint16Array),
      p: data.p,
      offset: data.offset,
      gh: this.gh.map((a) => a.buffer),
      idx: this.idx.buffer,
      out: this.out.buffer,
    });
    awaitHelper(this.h, 9, 1);
  }

  /** Fills `hist` (zeroed) with rows idx[start..end) of gradient array `gh`, c channels per slot. */
  fill(hist: Float64Array, gh: Float64Array, start: number, end: number, c: number): void {
    const { ctl } = this.h, { data, from } = this;
    Atomics.store(ctl, 2, 1);
    Atomics.store(ctl, 3, this.gh.indexOf(gh));
    Atomics.store(ctl, 4, start);
    Atomics.store(ctl, 5, end);
    Atomics.store(ctl, 6, from);
    Atomics.store(ctl, 7, c);
    const job = post(this.h);
    fillFeatures(hist, data, gh, this.idx, start, end, 0, from, c);
    if (Atomics.compareExchange(ctl, 8, job - 1, job) === job - 1) {
      // The helper has not taken the job yet: do its half here rather than wait for it.
      fillFeatures(hist, data, gh, this.idx, start, end, from, data.p, c);
      return;
    }
    awaitHelper(this.h, 1, job);
    const a = data.offset[from]! * c, b = data.offset[data.p]! * c;
    hist.set(this.out.subarray(a, b), a);
  }

  /** Hands the helper back (to be ended after a second unless another fit takes it). */
  release(): void {
    const { ctl } = this.h;
    Atomics.store(ctl, 2, 0);
    awaitHelper(this.h, 1, post(this.h));
    idle = setTimeout(closeGbdtThreads, 1000);
  }
}

/** Adds rows idx[start..end) into the slots of features [from, to), as the one-thread fill does there. */
function fillFeatures(
  hist: Float64Array,
  data: Binned,
  gh: Float64Array,
  idx: Int32Array,
  start: number,
  end: number,
  from: number,
  to: number,
  c: number,
): void {
  const { p, slots } = data;
  for (let t = start; t < end; t++) {
    const r = idx[t]!, g = gh[2 * r]!, h = gh[2 * r + 1]!, base = r * p;
    if (c === 3) {
      for (let f = from; f < to; f++) {
        const s = slots[base + f]! * 3;
        hist[s]! += g;
        hist[s + 1]! += h;
        hist[s + 2]! += 1;
      }
    } else {
      for (let f = from; f < to; f++) {
        const s = slots[base + f]! << 1;
        hist[s]! += g;
        hist[s + 1]! += h;
      }
    }
  }
}
