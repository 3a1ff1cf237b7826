/**
 * The imperative shell around the step function. Each tick: SENSE (the world reads observations, which
 * includes the lock-step handshake with every running worker), the pure step (DECIDE, FREE, FLOW, ADMIT),
 * the actions it asked for, then PERSIST (scope record, replay line, incidents, state.json, report).
 *
 * @module
 */
import type { Event } from "../model/events.ts";
import type { RunState } from "../model/state.ts";
import { BlackBox } from "../record/blackbox.ts";
import type { BuiltinWorker } from "../runtime/launch.ts";
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
  /** Directory of other runs, hidden from sandboxed programs. */
  runsDir?: string | null;
  onTick?: (state: RunState, events: readonly Event[]) => void;
  signal?: AbortSignal;
}

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
      runsDir: opts.runsDir ?? null,
    }),
    box: new BlackBox(opts.runDir),
  };
}

/** Starts a new run from its initial state and drives it to a verdict (or an abort). */
export async function startRun(state: RunState, opts: EngineOptions): Promise<RunState> {
  const session = openSession(opts);
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
