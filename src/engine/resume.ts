/**
 * Crash-resume: continue a run whose arrow process died, from its last persisted tick. replay.jsonl is
 * the authority; the black box is repaired to match it, process groups the dead process left are stopped,
 * every scope is restored to its recorded content, running nodes restart, and the tick loop goes on. On the
 * Slurm runtime, jobs outlive arrow: a running node's job is re-attached instead (its scope is left as the
 * job keeps writing it), jobs of nodes that no longer run are cancelled, and only a job Slurm lost restarts.
 *
 * @module
 */
import type { NodeId } from "../graph/types.ts";
import type { RunState } from "../model/state.ts";
import type { Recovery } from "../record/blackbox.ts";
import { type Reattached, reattachJobs, slurmNodes } from "../runtime/backend/mod.ts";
import { sweepLeftovers } from "../runtime/proc/mod.ts";
import { soonReady } from "./admit.ts";
import { drive, type EngineOptions, openRuntime, openSession } from "./run.ts";

export interface ResumeReport {
  recovery: Recovery;
  /** Pids of processes of the dead run that were still alive and got stopped. */
  stopped: number[];
  /** Scope files the blob store could not restore (lost to a power cut, or larger than the blob limit). */
  lost: string[];
  /** Nodes restarted. */
  restarted: string[];
  /** Slurm runtime: nodes whose job was re-attached (not submitted again). */
  reattached: string[];
  /** Slurm runtime: jobs cancelled (their node no longer runs that attempt, or no attempt matched them). */
  cancelledJobs: string[];
}

/** Inspects a run without changing anything: is it finished, and what would be repaired. */
export function inspect(opts: Pick<EngineOptions, "runDir">): Recovery {
  return openSession({ runDir: opts.runDir, tickMs: 0, maxTicks: 0 }).box.reopen(true);
}

export async function resumeRun(
  opts: EngineOptions,
  onReady?: (r: ResumeReport) => void,
): Promise<{ state: RunState; report: ResumeReport }> {
  const session = openSession(opts);
  const recovery = session.box.reopen();
  const state = recovery.state;
  const report: ResumeReport = {
    recovery,
    stopped: [],
    lost: [],
    restarted: [],
    reattached: [],
    cancelledJobs: [],
  };
  if (state.verdict !== null) {
    await opts.slurm?.close();
    return { state, report };
  }
  // Connected first: a cluster that does not answer stops the resume before anything changed.
  const slurm = await openRuntime(state, opts);
  session.world.slurm = slurm;
  // Before the journal is cleared: nothing the killed run's workers left started before its first worker.
  const since = session.world.procs.firstStart();
  report.stopped = await session.world.procs.stopLeftovers();
  // Daemons the workers detached (own session, with or without their environment) are in no journaled group.
  report.stopped.push(...await sweepLeftovers(session.world.runDir, since));
  session.world.scopes.truncate(state.tick);
  let jobs: Reattached | null = null;
  if (slurm) {
    const onSlurm = new Set(slurmNodes(state.plan, state.mode, opts.builtins ?? {}));
    jobs = await reattachJobs(slurm, state, (id) => onSlurm.has(id));
    report.reattached = [...jobs.attached.keys()];
    report.cancelledJobs = jobs.cancelled;
  }
  report.lost = session.world.scopes.restore(sparing(state, jobs?.attached.keys() ?? []));
  for (const id of state.plan.order) {
    if (state.nodes[id]!.status !== "running") continue;
    const job = jobs?.attached.get(id);
    if (job) {
      session.world.attach(state, id, job);
      continue;
    }
    session.world.resumeNode(state, id);
    report.restarted.push(id);
  }
  session.world.prewarm(state, (id) => soonReady(state, id));
  onReady?.(report);
  opts.onTick?.(state, []);
  return { state: await drive(state, session, opts), report };
}

/**
 * The state with re-attached nodes left out of the scope restore: their job is still writing (or finished
 * writing while arrow was away), so putting back the last recorded content would undo real work.
 */
function sparing(state: RunState, ids: Iterable<NodeId>): RunState {
  const nodes = { ...state.nodes };
  for (const id of ids) nodes[id] = { ...nodes[id]!, spawned: false };
  return { ...state, nodes };
}
