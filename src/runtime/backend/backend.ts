/**
 * Where a node's worker runs, behind one interface with two backends: a local process group
 * (local.ts) or a Slurm batch job (slurm.ts). SENSE asks an attempt's `Proc` what its
 * process is doing without waiting on anything; the actions stop it (resolving only once it can no longer
 * write) or start the next attempt. The engine never learns which backend runs a node: it sees the same
 * files and the same exit, plus — for a job — what the scheduler said, as evidence.
 *
 * @module
 */
import type { PlanNode, Runtime } from "../../graph/types.ts";
import type { Mode } from "../../model/state.ts";
import type { BuiltinWorker, Command } from "./launch.ts";
import type { Spawned } from "../proc/proc.ts";

/** A scheduler job behind a node's current attempt, as the node's state records it (Slurm only). */
export interface JobNote {
  id: string;
  attempt: number;
  /** The job's state (PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, PREEMPTED, …). */
  state: string;
}

/** What the scheduler said about a job that ended without a claim: evidence for the crash. */
export interface JobEnd {
  /** null when no job exists (the submission was refused). */
  job_id: string | null;
  state: string;
  /** Slurm's own state word ("COMPLETING", "BOOT_FAIL", …). */
  slurm_state: string;
  reason: string;
}

export type Phase =
  /** Not running yet (queued by the scheduler, or its submission in flight): its silence is not a hang. */
  | { phase: "queued"; reason: string }
  | { phase: "running" }
  /** The process is gone: exit code (null when a signal or the scheduler ended it), and the job's end. */
  | { phase: "ended"; exit: number | null; signal: string | null; job: JobEnd | null };

/** One attempt's process, wherever it runs. */
export interface Proc {
  readonly backend: Runtime;
  /** What the process is doing now; never waits (a job's state comes from the poller's cache). */
  look(): Phase;
  /** Stops the process; resolves once it can no longer write (group gone, job final). Never rejects. */
  stop(): Promise<void>;
  /** The local child with its pipes (what a lock-step worker is driven through); null for a job. */
  readonly spawned: Spawned | null;
  /** The job behind the process for the node's state, once it has an id; null for a local process. */
  job(): JobNote | null;
}

export interface StartRequest {
  node: PlanNode;
  attempt: number;
  cmd: Command;
  /** Files that receive the program's stdout (free-running workers) and stderr. */
  stdout: string;
  stderr: string;
  /** Byte offset of the node's metrics.jsonl this attempt's lines start at (what a re-attach reads from). */
  metricsAt: number;
}

export interface Backend {
  readonly name: Runtime;
  /** Starts an attempt. Never throws for a start that fails: the Proc then ends at once, saying why. */
  start(req: StartRequest): Proc;
  /** Releases what the backend holds (a poller); processes are stopped through their Procs first. */
  close(): Promise<void>;
}

/**
 * Which backend runs an attempt. On Slurm only long nodes whose worker runs free are jobs: a lock-step
 * worker (mock, built-in fast and reactive ones) is driven by arrow every tick over its stdin, and an agent
 * is arrow's own loop talking to an LLM endpoint; both stay local, like acceptance commands.
 */
export function placeOf(runtime: Runtime, node: PlanNode, cmd: Pick<Command, "lockstep">): Runtime {
  if (runtime !== "slurm" || node.kind !== "long" || cmd.lockstep) return "local";
  return node.worker?.type === "agent" ? "local" : "slurm";
}

/**
 * Nodes of a plan that would run as Slurm jobs in this mode (without building their commands): long nodes
 * whose worker is a command or a free-running built-in. Empty on the mock path (every worker is lock-step).
 */
export function slurmNodes(
  plan: { runtime: Runtime; nodes: readonly PlanNode[] },
  mode: Mode,
  builtins: Record<string, BuiltinWorker>,
): string[] {
  if (plan.runtime !== "slurm" || mode === "mock") return [];
  return plan.nodes.filter((n) => {
    const w = n.worker;
    if (n.kind !== "long" || !w) return false;
    if (w.type === "builtin") return builtins[w.name]?.lockstep === false;
    return w.type === "command";
  }).map((n) => n.id);
}
