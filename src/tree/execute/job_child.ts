/**
 * An executor run as a Slurm batch job (`arrow tree --runtime slurm`): the same command line and sandbox
 * layer as a local child (runChild), submitted with sbatch; its metrics.jsonl is read from the shared
 * filesystem with the same hang clock (runtime/proc/watch.ts: K_FREEZE observations without a new line is a
 * hang), counted from when the job starts running (a queued job holds no executor slot's silence against it),
 * and the same wall budget. A hang, the budget or an interrupt ends it with scancel. The recomputation, the merge gate and the
 * final test stay local: they are Arrow's own checks, and cheap. On `arrow tree --resume`, the jobs a killed
 * arrow left are cancelled (`cancelLeftJobs`).
 *
 * @module
 */
import type { ProcJournal } from "../../runtime/proc/mod.ts";
import { readRegular } from "../../runtime/safe_read.ts";
import { isFinal, jobName, type JobView, runPrefix, type SlurmClient } from "../../runtime/slurm/mod.ts";
import { HangClock, JsonlTail, overrun, watchLoop } from "../../runtime/proc/mod.ts";
import {
  childFiles,
  type ChildOutcome,
  escapesOf,
  stderrRefusals,
  tail,
  type WatchOptions,
} from "./child.ts";
import type { ChildCommand } from "./sandbox.ts";

/** How long a cancelled job may take to reach a final state before its view is taken as it is. */
const CANCEL_WAIT_MS = 60_000;
const dec = new TextDecoder();

const SIGNALS: Record<number, string> = { 1: "SIGHUP", 2: "SIGINT", 9: "SIGKILL", 15: "SIGTERM" };

export interface JobWatchOptions
  extends Omit<WatchOptions, "stdin" | "journal" | "progress" | "activeLimit"> {
  /** The run's directory name, for the job name (`arrow.<run>.<label>.<attempt>`). */
  run: string;
  attempt: number;
  journal?: ProcJournal;
}

/** Runs `cmd` as a Slurm job and watches it like runChild watches a local executor. */
export async function runJobChild(
  client: SlurmClient,
  cmd: ChildCommand,
  o: JobWatchOptions,
): Promise<ChildOutcome> {
  const { stderrFile, stdoutFile } = childFiles(o);
  const refused = stderrRefusals(cmd, stderrFile);
  const t0 = performance.now();
  const ended = (why: string): ChildOutcome => ({
    exit: null,
    signal: null,
    stdout: "",
    stderrTail: [why],
    hung: null,
    overBudget: null,
    escapes: [],
    refusing: cmd.refusing ?? [],
    lines: [],
    wallMs: performance.now() - t0,
    activeMs: performance.now() - t0,
    cancelled: false,
  });
  let id: string;
  try {
    id = await client.submit({
      name: jobName(o.run, o.label.replaceAll(".", "-"), o.attempt),
      argv: [cmd.cmd, ...cmd.args],
      env: cmd.env,
      cwd: cmd.cwd,
      stdout: stdoutFile,
      stderr: stderrFile,
      scriptCopy: `${o.logDir}/${o.label}.sbatch`,
    });
  } catch (e) {
    return ended(`arrow: cannot submit the executor as a Slurm job: ${(e as Error).message}`);
  }
  // The hang clock runs once the job does: a queued job's silence is not held against it.
  const clock = new HangClock(o.metrics ? new JsonlTail(o.metrics) : null, null, t0);
  let running: number | null = null;
  let view: JobView = client.state(id);
  /** Reads the metrics; the job runs from its first RUNNING state or its first line, whichever comes first. */
  const observe = (now: number) => {
    const seen = clock.lines.length;
    const hung = clock.look(now, o.observeMs, running === null);
    if (running === null && (view.state === "RUNNING" || clock.lines.length > seen)) running = now;
    return hung;
  };
  const { hung, overBudget } = await watchLoop(o.observeMs, {
    async wait(ms) {
      await new Promise((r) => setTimeout(r, ms));
      view = client.state(id);
      // A job that ended between two looks is looked at once more: its last lines may start its clock.
      if (isFinal(view.state)) observe(performance.now());
    },
    ended: () => isFinal(view.state),
    check(now) {
      const hung = observe(now);
      return { hung, overBudget: !hung && running !== null ? overrun(now, running, o.wallMs) : null };
    },
    abort: () => !!o.signal?.aborted,
    async stop() {
      await client.cancel(id).catch(() => {});
      view = await client.waitFor(id, (v) => isFinal(v.state), CANCEL_WAIT_MS).catch(() => client.state(id));
    },
  });
  const lines = clock.finish();
  const out = readRegular(stdoutFile, 64 << 20);
  const stderrTail = tail(stderrFile);
  if (view.state !== "COMPLETED") stderrTail.push(`slurm: job ${id} ${view.state} (${view.reason})`);
  return {
    exit: view.exitCode,
    signal: view.signal !== null ? (SIGNALS[view.signal] ?? `signal ${view.signal}`) : null,
    stdout: out.ok ? dec.decode(out.bytes) : "",
    stderrTail,
    hung,
    overBudget,
    escapes: escapesOf(cmd, refused),
    refusing: cmd.refusing ?? [],
    lines,
    wallMs: performance.now() - t0,
    activeMs: performance.now() - (running ?? t0),
    cancelled: false,
  };
}

/**
 * The run's executor jobs still queued or running when `arrow tree --resume` starts: a killed arrow left
 * them, and the resumed tree executes those hypotheses again from its recorded state (the same job names),
 * so each is cancelled — none keeps writing into a worktree its new attempt owns, or holds the cluster.
 * Returns the ids it cancelled.
 */
export async function cancelLeftJobs(client: SlurmClient, run: string): Promise<string[]> {
  const left = (await client.findJobs(runPrefix(run))).filter((v) => !isFinal(v.state));
  for (const v of left) await client.cancel(v.jobId).catch(() => {});
  return left.map((v) => v.jobId);
}
