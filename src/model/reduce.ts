/**
 * The reducer: folds events into the run state. It holds no judgement; every decision was made before the
 * event was emitted, so replaying events always lands on the same state.
 *
 * @module
 */
import type { Event, ReplayLine } from "./events.ts";
import type { RunState } from "./state.ts";

/** Applies one event to a state in place and returns it. */
export function apply(state: RunState, ev: Event): RunState {
  switch (ev.e) {
    case "init":
      return structuredClone(ev.state);
    case "status":
      state.nodes[ev.node]!.status = ev.to;
      return state;
    case "incident":
      state.incidents++;
      return state;
    case "spawn":
      state.nodes[ev.node]!.spawned = true;
      return state;
    case "note":
      Object.assign(state.nodes[ev.node]!, structuredClone(ev.set));
      return state;
    case "slot": {
      const slot = state.slots[ev.slot];
      slot.held = ev.op === "hold" ? [...slot.held, ev.node].sort() : slot.held.filter((n) => n !== ev.node);
      return state;
    }
    case "metric":
    case "ckpt":
    case "stream":
      return state;
    case "fault":
      state.faults[ev.index]!.fired = true;
      return state;
    case "freeze":
      state.frozen = { ...ev.tuple, by: ev.by };
      return state;
    case "report":
      state.report = ev.version;
      return state;
    case "verdict":
      state.verdict = ev.verdict;
      state.quiesced = state.tick;
      return state;
  }
}

/** Applies a tick's events and advances the clock to that tick. */
export function applyTick(state: RunState, line: ReplayLine): RunState {
  let s = state;
  if (line.tick > s.tick) s.tick = line.tick;
  for (const ev of line.events) s = apply(s, ev);
  return s;
}

/** Folds a whole replay into a state; the first line must carry the init event. */
export function fold(lines: Iterable<ReplayLine>): RunState {
  let state: RunState | undefined;
  for (const line of lines) {
    const first = line.events[0];
    if (!state) {
      if (first?.e !== "init") throw new SyntaxError("Cannot replay: the first line has no init event");
      state = apply(undefined as unknown as RunState, first);
      state = applyTick(state, { tick: line.tick, events: line.events.slice(1) });
      continue;
    }
    state = applyTick(state, line);
  }
  if (!state) throw new SyntaxError("Cannot replay: replay.jsonl is empty");
  return state;
}
