/**
 * The black box: replay.jsonl (every event, one line per tick), incidents.jsonl (every overwatch action),
 * state.json (the latest state, written atomically) and the anytime report. Lines are canonical JSON with
 * sorted keys, so the same run always leaves the same bytes.
 *
 * @module
 */
import type { Event, ReplayLine } from "../model/events.ts";
import { canonical, canonicalPretty } from "../model/json.ts";
import type { Incident, RunState } from "../model/state.ts";
import { appendDurable, writeAtomic } from "../runtime/atomic.ts";
import { renderReport } from "./report.ts";

export const FILES = {
  replay: "replay.jsonl",
  incidents: "incidents.jsonl",
  state: "state.json",
  report: "report/report.md",
} as const;

export class BlackBox {
  readonly incidents: Incident[] = [];

  constructor(readonly runDir: string) {
    Deno.mkdirSync(`${runDir}/report`, { recursive: true });
  }

  /** Starts a fresh black box with the initial state as tick 0. */
  begin(state: RunState): void {
    Deno.writeTextFileSync(`${this.runDir}/${FILES.replay}`, "");
    Deno.writeTextFileSync(`${this.runDir}/${FILES.incidents}`, "");
    this.append({ tick: 0, events: [{ e: "init", state }] }, state);
  }

  /** Persists one tick: replay line, incidents, state.json, and the report when its version moved. */
  append(line: ReplayLine, state: RunState): void {
    appendDurable(`${this.runDir}/${FILES.replay}`, canonical(line) + "\n");
    const incidents = line.events.filter((e): e is Extract<Event, { e: "incident" }> => e.e === "incident")
      .map((e) => e.incident);
    this.incidents.push(...incidents);
    // incidents.jsonl is a projection of replay.jsonl (rebuilt from it on resume), so one fsync per tick,
    // on the authoritative log, is enough.
    appendDurable(
      `${this.runDir}/${FILES.incidents}`,
      incidents.map((i) => canonical(i) + "\n").join(""),
      false,
    );
    writeAtomic(`${this.runDir}/${FILES.state}`, canonicalPretty(state));
    if (line.tick === 0 || line.events.some((e) => e.e === "report")) this.writeReport(state);
  }

  writeReport(state: RunState): void {
    writeAtomic(`${this.runDir}/${FILES.report}`, renderReport(state, this.incidents), false);
  }
}
