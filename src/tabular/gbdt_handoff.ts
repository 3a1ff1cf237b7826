/**
 * The handshake between the fitting thread and the helper thread of a two-thread GBDT fit: the layout of
 * their shared control array and a wait that spins before it sleeps. Jobs come every few dozen microseconds
 * during a fit, and waking a sleeping thread (a futex wake, tens of microseconds on a virtual machine) would
 * cost as much as the work handed over, so a waiting thread watches the array for a while first; only a
 * thread that has said it sleeps is woken with `Atomics.notify`.
 *
 * @module
 */
import type { Task } from "./target.ts";

/** Task codes, as the helper is told them. */
export const TASKS: readonly Task[] = ["regression", "binary", "multiclass"];

/** Slots of the shared Int32Array. */
export const CTL = {
  /** The last job posted (its number). */
  job: 0,
  /** The last job the helper finished. */
  done: 1,
  /** What the posted job is (a `JOB` value). */
  kind: 2,
  /** The last job claimed, by the helper or (when the helper is late) by the fitting thread. */
  claim: 3,
  /** 1 while the helper sleeps on `job`, 1 while the fitting thread sleeps on `done`. */
  helperSleeps: 4,
  mainSleeps: 5,
  /** A job's answer (the partition's left count). */
  result: 6,
  /** The job's arguments. */
  arg: 8,
  size: 24,
} as const;

/** Job kinds. */
export const JOB = { release: 0, fill: 1, partition: 2, gradients: 3, leaves: 4, bin: 5, slots: 6 } as const;

/** The shared buffers of one fit, as the helper is bound to them. */
export interface Bind {
  ctl: SharedArrayBuffer;
  n: number;
  p: number;
  m: number;
  K: number;
  maxBins: number;
  /** A `TASKS` index. */
  task: number;
  /** Float64 copies of the columns the helper bins (the second half). */
  raw: SharedArrayBuffer;
  /** Bins, column-major: p columns of n bytes. */
  cols: SharedArrayBuffer;
  /** The helper's columns' edges (maxBins per feature) and how many each has. */
  edges: SharedArrayBuffer;
  edgeCount: SharedArrayBuffer;
  /** Int32 first slot per feature (p + 1) and real bins per feature (p). */
  offset: SharedArrayBuffer;
  nBins: SharedArrayBuffer;
  /** Row-major slots, 16- or 32-bit. */
  slots: SharedArrayBuffer;
  gh: SharedArrayBuffer[];
  idx: SharedArrayBuffer;
  F: SharedArrayBuffer;
  y: SharedArrayBuffer;
  /** The helper's half of a histogram (any channel count). */
  out: SharedArrayBuffer;
  feats: SharedArrayBuffer;
  leafStart: SharedArrayBuffer;
  leafEnd: SharedArrayBuffer;
  leafValue: SharedArrayBuffer;
}

/**
 * Allocates a fit's shared buffers (all but `ctl`). Those sized by the bins, not yet found, get the most
 * they can need (a feature has at most maxBins + 1 slots): pages never written cost no memory.
 */
export function bindArrays(
  n: number,
  p: number,
  m: number,
  K: number,
  maxBins: number,
  maxLeaves: number,
  task: number,
): Omit<Bind, "ctl"> {
  const sab = (bytes: number) => new SharedArrayBuffer(Math.max(8, bytes));
  return {
    n,
    p,
    m,
    K,
    maxBins,
    task,
    raw: sab(8 * n * (p - (p >> 1))),
    cols: sab(n * p),
    edges: sab(8 * p * maxBins),
    edgeCount: sab(4 * p),
    offset: sab(4 * (p + 1)),
    nBins: sab(4 * p),
    slots: sab(4 * n * p),
    gh: Array.from({ length: K }, () => sab(16 * n)),
    idx: sab(4 * m),
    F: sab(8 * n * K),
    y: sab(8 * n),
    out: sab(8 * p * (maxBins + 1) * 3),
    feats: sab(4 * p),
    leafStart: sab(4 * maxLeaves),
    leafEnd: sab(4 * maxLeaves),
    leafValue: sab(8 * maxLeaves),
  };
}

/**
 * How long a thread watches the array before it sleeps. The fitting thread's gaps between jobs (a tree's
 * small nodes, its bookkeeping) last up to a millisecond or so; the helper's half of a job runs about as long
 * as the fitting thread's, so a wait past this means the other thread lost its processor.
 */
const SPIN_MS = 2;

/**
 * Waits until ctl[slot] === value (or, with `differs`, until it is no longer `value`): spins, then sleeps
 * with `sleeps` set so the other side knows to notify. Says whether it had to sleep, or slept `timeoutMs`
 * in vain.
 */
export function waitFor(
  ctl: Int32Array,
  slot: number,
  value: number,
  differs: boolean,
  sleeps: number,
  timeoutMs: number,
): "spun" | "slept" | "timed-out" {
  if ((Atomics.load(ctl, slot) === value) !== differs) return "spun";
  const until = performance.now() + SPIN_MS;
  do {
    for (let i = 0; i < 1024; i++) {
      if ((Atomics.load(ctl, slot) === value) !== differs) return "spun";
    }
  } while (performance.now() < until);
  let waited: "slept" | "timed-out" = "slept";
  Atomics.store(ctl, sleeps, 1);
  for (;;) {
    // Read after announcing the sleep: a value stored before the announcement is seen here, one stored
    // after it comes with a notify.
    const now = Atomics.load(ctl, slot);
    if ((now === value) !== differs) break;
    if (Atomics.wait(ctl, slot, now, timeoutMs) === "timed-out") {
      waited = "timed-out";
      break;
    }
  }
  Atomics.store(ctl, sleeps, 0);
  return waited;
}

/** Stores ctl[slot] = value and wakes the other side if it said it sleeps (on `sleeps`). */
export function signal(ctl: Int32Array, slot: number, value: number, sleeps: number): void {
  Atomics.store(ctl, slot, value);
  if (Atomics.load(ctl, sleeps)) Atomics.notify(ctl, slot);
}
