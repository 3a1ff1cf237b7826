/**
 * Crash-resume: continue a run whose arrow process died, from its last persisted tick. replay.jsonl is
 * the authority; the black box is repaired to match it, process groups the dead process left are stopped,
 * every scope is restored to its recorded content, running nodes restart, and the tick loop goes on.
 *
 * @module
 */
import type { RunState } from "../model/state.ts";
import type { Recovery } from "../record/blackbox.ts";
import { soonReady } from "./admit.ts";
import { drive, type EngineOptions, openSession } from "./run.ts";

export interface ResumeReport {
  recovery: Recovery;
  /** Pids of processes of the dead run that were still alive and got stopped. */
  stopped: number[];
  /** Scope files the blob store could not restore (lost to a power cut, or larger than the blob limit). */
  lost: string[];
  /** Nodes restarted. */
  restarted: string[];
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
  const report: ResumeReport = { recovery, stopped: [], lost: [], restarted: [] };
  if (state.verdict !== null) return { state, report };
  report.stopped = await session.world.procs.stopLeftovers();
  session.world.scopes.truncate(state.tick);
  report.lost = session.world.scopes.restore(state);
  for (const id of state.plan.order) {
    if (state.nodes[id]!.status !== "running") continue;
    session.world.resumeNode(state, id);
    report.restarted.push(id);
  }
  session.world.prewarm(state, (id) => soonReady(state, id));
  onReady?.(report);
  opts.onTick?.(state, []);
  return { state: await drive(state, session, opts), report };
}
