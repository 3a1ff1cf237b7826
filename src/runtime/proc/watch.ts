/**
 * The one child watcher both modes use: how long a child has had to run (wall time less the time its process
 * tree waited for a CPU, cpu_wait.ts), when it is next observed, when its silence is a hang (K_FREEZE
 * observations without a sign of life), when it has overrun a budget, and the loop that polls a child until
 * it ends or one of those stops it (`watchLoop`).
 *
 * The graph path paces a node's observations with `RunClock.due` and counts the silent ones in the pure step
 * (overwatch/detectors.ts `trackProgress`), so its black box stays deterministic; tree mode's children,
 * slots and Slurm jobs, which no tick observes, read their silence off a `HangClock` here. Either way a
 * starved child is not called hung, and one that sleeps or spins with a CPU to itself is judged on the wall
 * clock.
 *
 * @module
 */
import { K_FREEZE } from "../../thresholds.ts";
import { CpuWait } from "./cpu_wait.ts";
import type { JsonlTail } from "./tail.ts";

/** A silence long enough to be a hang: the lines seen before it, and how long it lasted. */
export interface Hang {
  step: number;
  silent_ms: number;
  silent_from_start: boolean;
}

/** A budget that ran out: its limit and what was used, in ms. */
export interface Overrun {
  limit_ms: number;
  used_ms: number;
}

/**
 * Time a child had to run since a moment (`since`): each look moves that moment later by what the child's
 * process tree waited for a CPU in between. Without a local process (a Slurm job) it is the wall clock.
 */
export class RunClock {
  readonly #cpu: CpuWait | null;

  constructor(pid: number | null, public since: number) {
    this.#cpu = pid === null ? null : new CpuWait(pid);
    this.#cpu?.waited(since);
  }

  /** Moves `since` by the CPU wait since the previous look; the ms credited. */
  credit(now: number): number {
    const ms = this.#cpu?.waited(now) ?? 0;
    this.since += ms;
    return ms;
  }

  /** Counts from `now` again (an observation was made, the child showed a sign of life). */
  restart(now: number): void {
    this.since = now;
  }

  /** Ms the child had to run since `since`. */
  elapsed(now: number): number {
    return now - this.since;
  }

  /** True when `paceMs` of running time have passed since the last observation, which `now` then is. */
  due(now: number, paceMs: number): boolean {
    this.credit(now);
    if (this.elapsed(now) < paceMs) return false;
    this.restart(now);
    return true;
  }
}

/**
 * A child's hang clock: the last sign of life in its watched log (metrics or progress lines), postponed by
 * CPU wait; silent for K_FREEZE observation periods, it is hung. Shared by tree mode's one-shot children,
 * slots and Slurm job children.
 */
export class HangClock {
  readonly lines: Record<string, unknown>[] = [];
  readonly #clock: RunClock;

  /** `pid` is the child's local process, whose CPU wait is not silence; null for a job on another machine. */
  constructor(readonly tail: JsonlTail | null, pid: number | null, now: number) {
    this.#clock = new RunClock(pid, now);
  }

  /** The child was given its work at `now`: its silence counts from there. */
  news(now: number): void {
    this.#clock.restart(now);
  }

  /** When the log was last read and the CPU wait last sampled. */
  #looked = -Infinity;

  /** Reads what the log gained by `now`; the hang, once it has been silent K_FREEZE observations. The log
   * is read and the CPU wait sampled once every `lookEvery(observeMs)` at most (each costs a few file reads
   * per process), and always before a silence is called a hang. */
  look(now: number, observeMs: number, waiting = false): Hang | null {
    const limit = K_FREEZE * observeMs;
    // A standby waiting for its line is not silent: its hang clock starts when it is told to go.
    const silent = waiting ? 0 : this.#clock.elapsed(now);
    const due = now - this.#looked >= lookEvery(observeMs) || silent >= limit;
    if (due) {
      this.#looked = now;
      this.#clock.credit(now);
    }
    if (waiting) this.#clock.restart(now);
    if (!due || !this.tail) return null;
    const fresh = this.tail.read();
    if (fresh.length) {
      this.lines.push(...fresh);
      this.#clock.restart(now);
    }
    const silentFor = this.#clock.elapsed(now);
    if (silentFor < limit) return null;
    const step = this.lines.length;
    return { step, silent_ms: Math.round(silentFor), silent_from_start: step === 0 };
  }

  /** Every line seen, the last ones read once the child has ended. */
  finish(): Record<string, unknown>[] {
    if (this.tail) this.lines.push(...this.tail.read());
    return this.lines;
  }
}

/** A budget of `limitMs` counted from `since`, overrun at `now`, or null. */
export function overrun(now: number, since: number, limitMs: number): Overrun | null {
  return now - since >= limitMs ? { limit_ms: limitMs, used_ms: Math.round(now - since) } : null;
}

/** How often a hang clock reads a child's log and samples its CPU wait: a quarter of an observation period,
 * at most a second (a hang takes K_FREEZE periods), never more often than the poll. */
export function lookEvery(observeMs: number): number {
  return Math.max(pollMs(observeMs), Math.min(1000, observeMs / 4));
}

/** How often a watcher polls a child observed every `observeMs`: often enough, never busily. */
export function pollMs(observeMs: number): number {
  return Math.max(20, Math.min(observeMs, 200));
}

/** What `watchLoop` asks of the child it watches. */
export interface Watched {
  /** Waits up to `ms` (less when the child ends or writes something the watcher should see). */
  wait(ms: number): Promise<void>;
  ended(): boolean;
  /** The hang and the overrun at `now`, if any. */
  check(now: number): { hung: Hang | null; overBudget: Overrun | null };
  /** True when the child must be stopped for a reason of the caller's (cancelled, aborted). */
  abort(): boolean;
  /** Stops the child. */
  stop(): Promise<void>;
}

/**
 * Polls a child observed every `observeMs` until it ends, or stops it at the first hang, overrun or abort;
 * what the last look found.
 */
export async function watchLoop(
  observeMs: number,
  w: Watched,
): Promise<{ hung: Hang | null; overBudget: Overrun | null }> {
  let found: { hung: Hang | null; overBudget: Overrun | null } = { hung: null, overBudget: null };
  const pace = pollMs(observeMs);
  while (!w.ended()) {
    await w.wait(pace);
    if (w.ended()) break;
    found = w.check(performance.now());
    if (found.hung || found.overBudget || w.abort()) {
      await w.stop();
      break;
    }
  }
  return found;
}
