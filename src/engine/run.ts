/**
 * The imperative shell around the step function. Each tick: SENSE (the world reads observations, which
 * includes the lock-step handshake with every running worker), the pure step (DECIDE, FREE, FLOW, ADMIT),
 * the actions it asked for, then PERSIST (scope record, replay line, incidents, state.json, report).
 *
 * @module
 */
import type { Event } from "../model/events.ts";
import type { RunState } from "../model/state.ts";
import { openCopy, Tx } from "../model/tx.ts";
import { BlackBox } from "../record/blackbox.ts";
import { SlurmBackend, slurmNodes } from "../runtime/backend/mod.ts";
import type { BuiltinWorker } from "../runtime/backend/mod.ts";
import type { Unshare } from "../runtime/sandbox/mod.ts";
import { SlurmClient } from "../runtime/slurm/mod.ts";
import { World } from "../runtime/world.ts";
import { soonReady } from "./admit.ts";
import { exhaust, step, type StepResult } from "./step.ts";

export interface EngineOptions {
  runDir: string;
  /** Wall-clock pause between ticks; pacing for people, never a synchronisation. */
  tickMs: number;
  maxTicks: number;
  builtins?: Record<string, BuiltinWorker>;
  bwrap?: string | null;
  /** Command workers may run without a sandbox layer (the user said --unsandboxed). */
  unsandboxed?: boolean;
  /** Unconfined, how to watch a program in a mount namespace of its own (null: it cannot be made here). */
  watch?: Unshare | null;
  /** Unconfined programs no namespace can watch: recorded on the run (its report says what goes unseen). */
  unwatched?: boolean;
  /** Directory of other runs, hidden from sandboxed programs. */
  runsDir?: string | null;
  onTick?: (state: RunState, events: readonly Event[]) => void;
  signal?: AbortSignal;
  /**
   * A connected Slurm client, for a run whose plan says `runtime: slurm` (the caller connects it early to
   * report an unreachable cluster before anything starts). Without one, a run that has nodes to submit
   * connects to the cluster `slurmConf` (default $SLURM_CONF) names. The run owns it and closes it.
   */
  slurm?: SlurmClient | null;
  slurmConf?: string | null;
}

/** How often the Slurm poller asks squeue about the run's jobs (the tick reads its cache, never waits). */
export const SLURM_POLL_MS = 500;

export interface Session {
  world: World;
  box: BlackBox;
}

export function openSession(opts: EngineOptions): Session {
  return {
    world: new World({
      runDir: opts.runDir,
      builtins: opts.builtins ?? {},
      bwrap: opts.bwrap ?? null,
      unsandboxed: opts.unsandboxed ?? false,
      watch: opts.watch ?? null,
      runsDir: opts.runsDir ?? null,
    }),
    box: new BlackBox(opts.runDir),
  };
}

/**
 * The Slurm backend of a run whose runtime is slurm and that has nodes to submit (long nodes with a
 * free-running worker), else null (a given client is then closed). Throws SlurmError when the cluster does
 * not answer.
 */
export async function openRuntime(state: RunState, opts: EngineOptions): Promise<SlurmBackend | null> {
  if (!slurmNodes(state.plan, state.mode, opts.builtins ?? {}).length) {
    await opts.slurm?.close();
    return null;
  }
  const client = opts.slurm ??
    await SlurmClient.connect({ pollMs: SLURM_POLL_MS, ...(opts.slurmConf ? { conf: opts.slurmConf } : {}) });
  return new SlurmBackend(client, opts.runDir);
}

/** Starts a new run from its initial state and drives it to a verdict (or an abort). */
export async function startRun(initial: RunState, opts: EngineOptions): Promise<RunState> {
  // Recorded in the init line, so a replay or a resume admits exactly as this run did.
  const state: RunState = initial.mode !== "mock" && opts.unsandboxed && !opts.bwrap
    ? { ...initial, unconfined: true, ...(opts.unwatched ? { unwatched: true as const } : {}) }
    : initial;
  const slurm = await openRuntime(state, opts);
  const session = openSession(opts);
  session.world.slurm = slurm;
  session.box.begin(state);
  session.world.scopes.record(state);
  session.world.prewarm(state, (id) => soonReady(state, id));
  opts.onTick?.(state, []);
  return await drive(state, session, opts);
}

/** Runs ticks until the run concludes or `signal` aborts; workers are always stopped on the way out. */
export async function drive(
  start: RunState,
  { world, box }: Session,
  opts: EngineOptions,
): Promise<RunState> {
  let state = start;
  try {
    while (state.verdict === null && !opts.signal?.aborted) {
      let r: StepResult;
      if (state.tick >= opts.maxTicks) r = exhaust(state, opts.maxTicks);
      else r = step(state, await world.sense(state, state.tick + 1));
      if (opts.signal?.aborted) break;
      await world.execute(r.state, r.actions);
      // Jobs submitted or changed state (Slurm runtime only), and lanes a sandbox left read-only (too large
      // to copy): recorded in the tick they were seen.
      const notes = [...world.jobNotes(r.state), ...world.refusals.notes(r.state)];
      if (notes.length) r = withEvents(r, notes);
      if (r.state.verdict === null) world.prewarm(r.state, (id) => soonReady(r.state, id));
      world.scopes.record(r.state, touchedBy(state, r));
      box.append({ tick: r.state.tick, events: r.events }, r.state);
      state = r.state;
      opts.onTick?.(state, r.events);
      if (opts.tickMs > 0 && state.verdict === null) await pause(opts.tickMs, opts.signal);
    }
  } finally {
    await world.shutdown();
    await box.flush();
  }
  return state;
}

/** A step's result with further events of the same tick applied (copy on write, like the step's own). */
function withEvents(r: StepResult, events: readonly Event[]): StepResult {
  const tx = new Tx(openCopy(r.state), r.state.tick);
  for (const ev of events) tx.emit(ev);
  return { state: tx.state, events: [...r.events, ...tx.events], actions: r.actions };
}

/** Nodes whose scope may legitimately have changed in a tick: they ran, or an action touched them. */
function touchedBy(before: RunState, r: StepResult): Set<string> {
  const running = (s: RunState) => Object.keys(s.nodes).filter((id) => s.nodes[id]!.status === "running");
  return new Set([...running(before), ...running(r.state), ...r.actions.map((a) => a.node)]);
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
