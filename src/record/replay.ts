/**
 * Replay: the run state as a pure function of replay.jsonl. A torn last line (a crash mid-append) is
 * detected and dropped; a bad line anywhere else is an error naming its line number.
 *
 * @module
 */
import type { ReplayLine } from "../model/events.ts";
import { applyTick, initial } from "../model/reduce.ts";
import type { RunState } from "../model/state.ts";
import { GENESIS, lineHash } from "./chain.ts";

export interface ParsedReplay {
  lines: ReplayLine[];
  /** Bytes of a torn last line that was dropped, if any. */
  torn: number;
  /** Length in bytes of the intact prefix (what a resume truncates the file to). */
  intact: number;
  /** Hash of the last complete line (the chain's head). */
  head: string;
  /** Where the hash chain breaks: the 1-based line that does not follow from the line before it. */
  broken?: { line: number; reason: string };
}

export function parseReplay(text: string): ParsedReplay {
  const lines: ReplayLine[] = [];
  let pos = 0;
  let n = 0;
  let head = GENESIS;
  let broken: ParsedReplay["broken"];
  const done = (torn: number, intactText: string): ParsedReplay => ({
    lines,
    torn,
    intact: new TextEncoder().encode(intactText).length,
    head,
    ...(broken ? { broken } : {}),
  });
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
      if (nl < 0 || text.slice(end + 1).trim() === "") return done(text.length - pos, text.slice(0, pos));
      throw new SyntaxError(`replay.jsonl:${n}: not a replay line`);
    }
    if (nl < 0) return done(text.length - pos, text.slice(0, pos));
    if (!broken && parsed.prev !== head) {
      broken = {
        line: n,
        reason: parsed.prev === undefined
          ? "it carries no hash of the line before it"
          : "it does not follow from the line before it (a line was edited, dropped or inserted here)",
      };
    }
    head = lineHash(raw);
    lines.push(parsed);
    pos = nl + 1;
  }
  return done(0, text);
}

/** Yields the state after each line (the same object, mutated: clone it to keep one). */
export function* states(lines: readonly ReplayLine[]): Generator<{ line: ReplayLine; state: RunState }> {
  let state: RunState | undefined;
  for (const line of lines) {
    state = state ? applyTick(state, line) : initial(line);
    yield { line, state };
  }
}

export function finalState(lines: readonly ReplayLine[]): RunState {
  let last: RunState | undefined;
  for (const { state } of states(lines)) last = state;
  if (!last) throw new SyntaxError("replay.jsonl is empty");
  return last;
}
