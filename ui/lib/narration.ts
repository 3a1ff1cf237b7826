/**
 * The narration bar's sentences: one plain sentence per event a person would care about (status changes,
 * incidents, graph surgery, the frozen tuple, injected faults, the verdict). Incidents reuse the terminal's
 * `narrate`. Text only: the caller renders it as text.
 *
 * @module
 */
import type { Event, ReplayLine } from "../../src/model/events.ts";
import type { Status } from "../../src/model/state.ts";
import { narrate } from "../../src/record/narrate.ts";

export interface Sentence {
  tick: number;
  text: string;
  /** What kind of event it tells, for colouring. */
  kind: "status" | "incident" | "spawn" | "freeze" | "fault" | "verdict";
  /** Status the node moved to, or the incident's rung. */
  tone: string;
}

const BECAME: Record<Status, string> = {
  pending: "is pending again",
  running: "is running",
  verified: "passed acceptance — verified",
  stale: "turned stale (an input changed) and will re-run",
  blocked: "is blocked",
  stuck: "is stuck",
  oscillating: "is oscillating",
  plateaued: "plateaued",
  superseded: "was superseded",
  killed: "was killed",
};

function status(node: string, from: Status, to: Status): string {
  if (to === "running") return from === "pending" ? `${node} started` : `${node} runs again (was ${from})`;
  return `${node} ${BECAME[to]}`;
}

const short = (h: string) => h.slice(0, 8);

export function sentenceOf(tick: number, ev: Event): Sentence | null {
  switch (ev.e) {
    case "status":
      return { tick, kind: "status", tone: ev.to, text: status(ev.node, ev.from, ev.to) };
    case "incident":
      return { tick, kind: "incident", tone: ev.incident.ladder, text: narrate(ev.incident) };
    case "spawn":
      return {
        tick,
        kind: "spawn",
        tone: "graph_surgery",
        text: `${ev.node} added to the graph by ${ev.by}`,
      };
    case "freeze":
      return {
        tick,
        kind: "freeze",
        tone: "freeze",
        text: `${ev.by} froze the comparability tuple (data ${short(ev.tuple.data_hash)}, split ${
          short(ev.tuple.split_hash)
        }, protocol ${ev.tuple.protocol_version}, seed ${ev.tuple.seed})`,
      };
    case "fault":
      return { tick, kind: "fault", tone: "fault", text: `Scenario fault fired: ${ev.kind} on ${ev.node}` };
    case "verdict":
      return { tick, kind: "verdict", tone: ev.verdict, text: `Verdict: ${ev.verdict}` };
    default:
      return null;
  }
}

/** Sentences of lines 0..i, oldest first, at most `limit` of the latest. */
export function sentencesUpTo(lines: readonly ReplayLine[], i: number, limit: number): Sentence[] {
  const out: Sentence[] = [];
  for (let k = Math.min(i, lines.length - 1); k >= 0 && out.length < limit; k--) {
    const line = lines[k]!;
    for (let j = line.events.length - 1; j >= 0 && out.length < limit; j--) {
      const s = sentenceOf(line.tick, line.events[j]!);
      if (s) out.push(s);
    }
  }
  return out.reverse();
}
