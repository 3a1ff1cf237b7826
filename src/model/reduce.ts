/**
 * The reducer: folds events into the run state. It holds no judgement; every decision was made before the
 * event was emitted, so replaying events always lands on the same state.
 *
 * @module
 */
import { copyJson } from "./copy.ts";
import type { Event, ReplayLine } from "./events.ts";
import { type RunState, STATE_VERSION } from "./state.ts";

/** Applies one event to a state in place and returns it. */
export function apply(state: RunState, ev: Event): RunState {
  switch (ev.e) {
    case "init":
      return copyJson(ev.state);
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
      Object.assign(state.nodes[ev.node]!, copyJson(ev.set));
      return state;
    case "slot": {
      const slot = state.slots[ev.slot];
      slot.held = ev.op === "hold" ? [...slot.held, ev.node].sort() : slot.held.filter((n) => n !== ev.node);
      return state;
    }
    case "ckpt": {
      const { step, file, dev, best } = ev;
      state.nodes[ev.node]!.ckpts.push({
        step,
        file,
        ...(dev !== undefined ? { dev } : {}),
        ...(best !== undefined ? { best } : {}),
      });
      return state;
    }
    case "rewind": {
      const ns = state.nodes[ev.node]!;
      ns.ckpts = ev.step < 0 ? [] : ns.ckpts.filter((c) => c.step <= ev.step);
      return state;
    }
    case "stream":
      state.nodes[ev.to]!.inbox.push({ from: ev.from, step: ev.step, file: ev.file });
      return state;
    case "deliver": {
      const ns = state.nodes[ev.node]!;
      ns.delivered.push(...ns.inbox.splice(0, ev.n));
      return state;
    }
    case "request":
      state.requests = Math.max(state.requests, ev.request.seq);
      return state;
    case "metric":
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

/** The state a replay's first line starts from; a replay of another format version is refused. */
export function initial(line: ReplayLine): RunState {
  const first = line.events[0];
  if (first?.e !== "init") throw new SyntaxError("Cannot replay: the first line has no init event");
  if (first.state.v !== STATE_VERSION) {
    throw new SyntaxError(
      `Cannot replay: this run was recorded in format ${first.state.v}, this arrow reads format ${STATE_VERSION}`,
    );
  }
  return applyTick(apply(undefined as unknown as RunState, first), {
    tick: line.tick,
    events: line.events.slice(1),
  });
}

/** Folds a whole replay into a state; the first line must carry the init event. */
export function fold(lines: Iterable<ReplayLine>): RunState {
  let state: RunState | undefined;
  for (const line of lines) state = state ? applyTick(state, line) : initial(line);
  if (!state) throw new SyntaxError("Cannot replay: replay.jsonl is empty");
  return state;
}
