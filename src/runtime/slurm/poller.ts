/**
 * The background poller: one squeue call per poll for every watched job (plus the job completion file, and
 * sacct where accounting exists, for jobs squeue has forgotten) keeps a cached view of each job, so reading
 * a job's state is synchronous and costs nothing. A slow or failing scheduler never blocks a reader: the
 * call is cut at its time limit, the last known views stay, and `health()` says how stale they are.
 *
 * @module
 */
import type { ExecResult } from "./exec.ts";
import { JobcompTail } from "./jobcomp.ts";
import { parseSacct, parseSqueue, SQUEUE_FORMAT } from "./parse.ts";
import { isFinal, type JobId, type JobView } from "./types.ts";

/** Runs one Slurm tool (by name) with the client's environment, time limit and output bound. */
export type Runner = (
  tool: string,
  args: string[],
  o?: { stdin?: string; timeoutMs?: number },
) => Promise<ExecResult>;

export interface PollHealth {
  polls: number;
  failures: number;
  /** Failed polls since the last good one; the views are as old as `lastOkAt`. */
  consecutiveFailures: number;
  lastError: string | null;
  /** Wall-clock ms of the last poll that succeeded (0 = none yet). */
  lastOkAt: number;
  /** Duration of the last poll, ms. */
  lastPollMs: number;
  watched: number;
}

export interface PollerOptions {
  run: Runner;
  jobcomp: string | null;
  sacct: boolean;
  pollMs: number;
}

/** More ids than this and squeue lists the user's jobs instead of taking a very long --jobs list. */
const MAX_IDS = 2000;

export class Poller {
  readonly views = new Map<JobId, JobView>();
  /** Jobs polled each round: those not yet seen in a final state. */
  readonly watched = new Set<JobId>();
  #o: PollerOptions;
  #tail: JobcompTail | null;
  #listeners = new Set<(v: JobView) => void>();
  #chain: Promise<void> = Promise.resolve();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  #misses = new Map<JobId, number>();
  #records = new Map<JobId, JobView>();
  #health: PollHealth = {
    polls: 0,
    failures: 0,
    consecutiveFailures: 0,
    lastError: null,
    lastOkAt: 0,
    lastPollMs: 0,
    watched: 0,
  };

  constructor(o: PollerOptions) {
    this.#o = o;
    this.#tail = o.jobcomp ? new JobcompTail(o.jobcomp) : null;
    this.#tail?.skipToEnd();
  }

  /** Starts polling every `pollMs` (each poll starts after the previous one ended). */
  start(): void {
    if (this.#closed || this.#timer !== undefined) return;
    this.#timer = setTimeout(() => this.#loop(), this.#o.pollMs);
  }

  #loop(): void {
    this.#timer = undefined;
    void this.refresh().finally(() => {
      if (!this.#closed) this.#timer = setTimeout(() => this.#loop(), this.#o.pollMs);
    });
  }

  health(): PollHealth {
    return { ...this.#health, watched: this.watched.size };
  }

  /** Calls `fn` with every view that changed state, Slurm state word or reason. Returns the unsubscribe. */
  onChange(fn: (v: JobView) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** Records a view (from a poll, a submission or a scan) and tells listeners when it changed. */
  set(v: JobView): void {
    const old = this.views.get(v.jobId);
    this.views.set(v.jobId, v);
    if (isFinal(v.state)) this.watched.delete(v.jobId);
    else this.watched.add(v.jobId);
    if (old && old.state === v.state && old.slurmState === v.slurmState && old.reason === v.reason) return;
    for (const fn of this.#listeners) {
      try {
        fn(v);
      } catch {
        // one failing listener does not stop the others
      }
    }
  }

  /** One poll, started after any poll already running; resolves when it is done. Never rejects. */
  refresh(): Promise<void> {
    this.#chain = this.#chain.then(() => this.#poll()).catch(() => {});
    return this.#chain;
  }

  async #poll(): Promise<void> {
    if (this.#closed) return;
    const t0 = performance.now();
    const now = Date.now();
    const ids = [...this.watched].sort();
    const h = this.#health;
    h.polls++;
    try {
      const error = ids.length ? await this.#pollIds(ids, now) : null;
      if (!ids.length && this.#tail) await this.#tail.read(() => false, now);
      if (error) {
        h.failures++;
        h.consecutiveFailures++;
        h.lastError = error;
      } else {
        h.consecutiveFailures = 0;
        h.lastError = null;
        h.lastOkAt = now;
      }
    } finally {
      h.lastPollMs = performance.now() - t0;
    }
  }

  /** Returns an error message when squeue could not be read (the views then stay as they were). */
  async #pollIds(ids: JobId[], now: number): Promise<string | null> {
    const select = ids.length > MAX_IDS ? ["--me"] : [`--jobs=${ids.join(",")}`];
    const r = await this.#o.run("squeue", [
      "--noheader",
      "--states=all",
      ...select,
      `--Format=${SQUEUE_FORMAT}`,
    ]);
    // A single unknown id makes squeue fail; several unknown ids are silently left out.
    const unknownOne = ids.length === 1 && r.code === 1 && /Invalid job id specified/.test(r.stderr);
    if (r.timedOut) return `squeue timed out after ${Math.round(r.ms)} ms`;
    if (r.code !== 0 && !unknownOne) return `squeue failed (exit ${r.code}): ${r.stderr.slice(0, 300)}`;
    if (r.truncated) return "squeue printed more than the output bound";
    const rows = unknownOne ? new Map() : parseSqueue(r.stdout, now);
    const missing = new Set<JobId>();
    for (const id of ids) {
      const row = rows.get(id);
      if (row) {
        const { name: _name, ...v } = row;
        this.set(v);
      } else missing.add(id);
    }
    if (this.#tail) {
      // Records of every watched job are kept until squeue forgets it: on a cluster with a short MinJobAge a
      // job can go from COMPLETING to forgotten between two polls, after its record was read.
      for (const v of await this.#tail.read((id) => this.watched.has(id), now)) this.#records.set(v.jobId, v);
      for (const id of missing) {
        const v = this.#records.get(id);
        if (!v) continue;
        missing.delete(id);
        this.set(v);
      }
      for (const id of this.#records.keys()) if (!this.watched.has(id)) this.#records.delete(id);
    }
    if (missing.size && this.#o.sacct) {
      const s = await this.#o.run("sacct", [
        "--noheader",
        "--parsable2",
        "--allocations",
        `--jobs=${[...missing].join(",")}`,
        "--format=JobID,State,ExitCode,Reason",
      ]);
      if (s.code === 0) {
        for (const v of parseSacct(s.stdout, now).values()) {
          if (missing.delete(v.jobId)) this.set(v);
        }
      }
    }
    // Never seen by a poll (adopted after a restart): its record may be older than where the tail started.
    const unseen = new Set([...missing].filter((id) => (this.views.get(id)?.source ?? "none") === "none"));
    if (unseen.size && this.#o.jobcomp) {
      for (const v of (await JobcompTail.scan(this.#o.jobcomp, unseen, now)).values()) {
        missing.delete(v.jobId);
        this.set(v);
      }
    }
    // A job seen before must be missing from two good polls in a row before it is declared lost.
    for (const id of missing) {
      const n = (this.#misses.get(id) ?? 0) + 1;
      this.#misses.set(id, n);
      if (n >= 2 || unseen.has(id)) {
        this.#misses.delete(id);
        this.set(lost(id, now));
      }
    }
    for (const id of ids) if (!missing.has(id)) this.#misses.delete(id);
    return null;
  }

  /** Stops polling; waits for a poll in progress. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#chain;
    this.#listeners.clear();
  }
}

/** The view of a job Slurm does not know and no completion record mentions. */
export function lost(jobId: JobId, seenAt: number): JobView {
  return {
    jobId,
    state: "UNKNOWN",
    slurmState: "",
    exitCode: null,
    signal: null,
    reason: `Slurm does not know job ${jobId} and no completion record mentions it`,
    source: "none",
    seenAt,
  };
}
