/**
 * The vocabulary of the Slurm backend: job ids, the closed set of job states the engine sees, the cached view
 * of one job, what a submission carries, and the one error class callers catch.
 *
 * @module
 */
import type { SlurmOptions } from "../../graph/types.ts";

/** Per-job Slurm options: the plan's one definition (graph/types.ts). */
export type { SlurmOptions };

/** A Slurm job id as Slurm prints it ("4711"); a string so array ids ("4711_3") fit too. */
export type JobId = string;

/**
 * What the engine sees of a job. Persisted in evidence: a state string never changes meaning.
 * PENDING and RUNNING are live; every other state is final. UNKNOWN: Slurm does not (or no longer) know the
 * job and no completion record was found — the job must be treated as lost.
 */
export type JobState =
  | "PENDING"
  | "RUNNING"
  | "COMPLETED"
  | "FAILED"
  | "CANCELLED"
  | "TIMEOUT"
  | "PREEMPTED"
  | "NODE_FAIL"
  | "OUT_OF_MEMORY"
  | "UNKNOWN";

export const LIVE_STATES: ReadonlySet<JobState> = new Set(["PENDING", "RUNNING"]);

/** True for a state after which the job will never run again under this id. */
export function isFinal(state: JobState): boolean {
  return !LIVE_STATES.has(state);
}

/**
 * Pending reasons that waiting will not cure: the job asks for more than its partition, account or QOS
 * allows, names something that does not exist, waits on a dependency that can never be met, or is held.
 * Slurm keeps such a job PENDING for ever; the engine should report it rather than wait.
 */
const HOPELESS = new Set([
  "PartitionTimeLimit",
  "PartitionNodeLimit",
  "PartitionConfig",
  "BadConstraints",
  "InvalidAccount",
  "InvalidQOS",
  "AccountNotAllowed",
  "QOSNotAllowed",
  "DependencyNeverSatisfied",
  "JobHeldAdmin",
  "JobHeldUser",
]);

/** True when a PENDING job's reason says it will not start by waiting (see HOPELESS, and per-job limits). */
export function isStuckPending(v: Pick<JobView, "state" | "reason">): boolean {
  if (v.state !== "PENDING") return false;
  const word = v.reason.replace(/^\(/, "").split(/[,\s)]/)[0] ?? "";
  return HOPELESS.has(word) || /^(Assoc|QOS)Max\w*PerJob(Limit)?$/.test(word);
}

/** Where a job's view came from. "submit": sbatch accepted it and no poll has seen it yet. */
export type ViewSource = "submit" | "squeue" | "jobcomp" | "sacct" | "none";

/** The cached view of one job; `state()` hands these out without calling Slurm. */
export interface JobView {
  jobId: JobId;
  state: JobState;
  /** Slurm's own state word ("COMPLETING", "BOOT_FAIL", …), kept for evidence. */
  slurmState: string;
  /** The program's exit status when it exited; null while live, or when it was killed by a signal. */
  exitCode: number | null;
  /** The signal that ended the program (9, 15, …), or null. */
  signal: number | null;
  /** Slurm's reason ("Resources", "NonZeroExitCode", "TimeLimit", …) or ours for UNKNOWN. */
  reason: string;
  source: ViewSource;
  /** Wall-clock ms of the poll that produced this view: evidence of staleness, never a decision input. */
  seenAt: number;
}

/** One batch job to submit: the same argv, env and cwd a local run would use. */
export interface SubmitSpec {
  /** Job name; `jobName()` builds one that identifies run, node and attempt. */
  name: string;
  /** Program and arguments, exec'd by the batch script (a bubblewrap prefix included, if any). */
  argv: string[];
  /** The complete environment of the program (nothing else from arrow's environment leaks in). */
  env: Record<string, string>;
  /** Absolute working directory on the compute node (shared filesystem). */
  cwd: string;
  /** Absolute paths of the files that receive stdout and stderr (appended to). */
  stdout: string;
  stderr: string;
  options?: SlurmOptions;
  /** A copy of the batch script is written here (evidence; sbatch itself reads it from stdin). */
  scriptCopy?: string;
}

export type SlurmErrorKind = "timeout" | "failed" | "rejected" | "unavailable" | "invalid";

/**
 * A Slurm client call that did not succeed. `timeout`: the tool did not answer in time (the outcome of a
 * submission is then unknown — look the job up by name); `rejected`: Slurm refused (bad partition, account…);
 * `unavailable`: the tools or the controller cannot be reached; `invalid`: our caller's input was wrong.
 */
export class SlurmError extends Error {
  constructor(message: string, readonly kind: SlurmErrorKind, readonly detail = "") {
    super(message);
    this.name = "SlurmError";
  }
}
