/**
 * Replay: the run state as a pure function of replay.jsonl. A torn last line (a crash mid-append) is
 * detected and dropped; a bad line anywhere else is an error naming its line number.
 *
 * @module
 */
import type { ReplayLine } from "../model/events.ts";
import { apply, applyTick } from "../model/reduce.ts";
import type { RunState } from "../model/state.ts";

export interface ParsedReplay {
  lines: ReplayLine[];
  /** Bytes of a torn last line that was dropped, if any. */
  torn: number;
  /** Length in bytes of the intact prefix (what a resume truncates the file to). */
  intact: number;
}

export function parseReplay(text: string): ParsedReplay {
  const lines: ReplayLine[] = [];
  let pos = 0;
  let n = 0;
  while (pos < text.length) {
    const nl = text.indexOf("\n", pos);
    const end = nl < 0 ? text.length : nl;
    const raw = text.slice(pos, end);
    n++;
    let parsed: ReplayLine | undefined;
    try {
      parsed = JSON.parse(raw) as ReplayLine;
    } catch {
      parsed = undefined;
    }
    if (!parsed || typeof parsed.tick !== "number" || !Array.isArray(parsed.events)) {
      if (nl < 0 || text.slice(end + 1).trim() === "") {
        return {
          lines,
          torn: text.length - pos,
          intact: new TextEncoder().encode(text.slice(0, pos)).length,
        };
      }
      throw new SyntaxError(`replay.jsonl:${n}: not a replay line`);
    }
    if (nl < 0) {
      return { lines, torn: text.length - pos, intact: new TextEncoder().encode(text.slice(0, pos)).length };
    }
    lines.push(parsed);
    pos = nl + 1;
  }
  return { lines, torn: 0, intact: new TextEncoder().encode(text).length };
}

/** Yields the state after each line (the same object, mutated: clone it to keep one). */
export function* states(lines: readonly ReplayLine[]): Generator<{ line: ReplayLine; state: RunState }> {
  let state: RunState | undefined;
  for (const line of lines) {
    if (!state) {
      const init = line.events[0];
      if (init?.e !== "init") throw new SyntaxError("replay.jsonl:1: the first line has no init event");
      state = applyTick(apply(undefined as unknown as RunState, init), {
        tick: line.tick,
        events: line.events.slice(1),
      });
    } else state = applyTick(state, line);
    yield { line, state };
  }
}

export function finalState(lines: readonly ReplayLine[]): RunState {
  let last: RunState | undefined;
  for (const { state } of states(lines)) last = state;
  if (!last) throw new SyntaxError("replay.jsonl is empty");
  return last;
}
