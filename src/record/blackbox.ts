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
import { appendDurable, LatestWriter, writeAtomic } from "../runtime/atomic.ts";
import { finalState, parseReplay } from "./replay.ts";
import { renderReport } from "./report.ts";

/** What reopening a black box after a crash found and repaired. */
export interface Recovery {
  state: RunState;
  /** Bytes of a torn last replay line that was dropped. */
  torn: number;
  /** How state.json compared with the state rebuilt from replay.jsonl (it is rewritten unless "ok"). */
  stateFile: "ok" | "missing" | "corrupt" | "differs";
  /** Incident lines that had to be rewritten to match replay.jsonl. */
  incidentsRepaired: boolean;
}

export const FILES = {
  replay: "replay.jsonl",
  incidents: "incidents.jsonl",
  state: "state.json",
  report: "report/report.md",
} as const;

export class BlackBox {
  readonly incidents: Incident[] = [];
  /** state.json: replaced atomically and fsynced every tick, in the background so the loop does not wait. */
  readonly #state: LatestWriter;

  constructor(readonly runDir: string) {
    Deno.mkdirSync(`${runDir}/report`, { recursive: true });
    this.#state = new LatestWriter(`${runDir}/${FILES.state}`);
  }

  /** Waits until the latest state.json is on disk. */
  flush(): Promise<void> {
    return this.#state.flush();
  }

  /** Starts a fresh black box with the initial state as tick 0. */
  begin(state: RunState): void {
    Deno.writeTextFileSync(`${this.runDir}/${FILES.replay}`, "");
    Deno.writeTextFileSync(`${this.runDir}/${FILES.incidents}`, "");
    this.append({ tick: 0, events: [{ e: "init", state }] }, state);
  }

  /** Persists one tick: replay line, incidents, state.json, and the report when its version moved. */
  append(line: ReplayLine, state: RunState): void {
    // Written through to the OS every tick (a killed arrow loses nothing); not fsynced: state.json is, and a
    // power cut can at worst cost the last ticks, which a resume runs again.
    appendDurable(`${this.runDir}/${FILES.replay}`, canonical(line) + "\n", false);
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
    this.#state.write(canonicalPretty(state));
    if (line.tick === 0 || line.events.some((e) => e.e === "report")) this.writeReport(state);
  }

  /**
   * Reopens the black box of an interrupted run. replay.jsonl is the authority: a torn last line is cut
   * off, incidents.jsonl is made to match it, and state.json is rebuilt from it when it is missing,
   * corrupt or out of step. With `dryRun` nothing is written (a finished run must stay untouched).
   */
  reopen(dryRun = false): Recovery {
    const replayPath = `${this.runDir}/${FILES.replay}`;
    let text: string;
    try {
      text = Deno.readTextFileSync(replayPath);
    } catch {
      throw new SyntaxError(`Cannot resume ${this.runDir}: replay.jsonl is missing`);
    }
    const parsed = parseReplay(text);
    if (!parsed.lines.length) {
      throw new SyntaxError(`Cannot resume ${this.runDir}: replay.jsonl has no complete tick`);
    }
    const state = finalState(parsed.lines);
    const incidents = parsed.lines.flatMap((l) =>
      l.events.filter((e): e is Extract<Event, { e: "incident" }> => e.e === "incident").map((e) =>
        e.incident
      )
    );
    const rebuiltIncidents = incidents.map((i) => canonical(i) + "\n").join("");
    let onDiskIncidents = "";
    try {
      onDiskIncidents = Deno.readTextFileSync(`${this.runDir}/${FILES.incidents}`);
    } catch {
      onDiskIncidents = "";
    }
    const rebuiltState = canonicalPretty(state);
    let stateFile: Recovery["stateFile"] = "ok";
    try {
      const disk = Deno.readTextFileSync(`${this.runDir}/${FILES.state}`);
      try {
        JSON.parse(disk);
        if (disk !== rebuiltState) stateFile = "differs";
      } catch {
        stateFile = "corrupt";
      }
    } catch {
      stateFile = "missing";
    }
    const incidentsRepaired = onDiskIncidents !== rebuiltIncidents;
    if (!dryRun) {
      if (parsed.torn) Deno.truncateSync(replayPath, parsed.intact);
      if (incidentsRepaired) writeAtomic(`${this.runDir}/${FILES.incidents}`, rebuiltIncidents);
      if (stateFile !== "ok") writeAtomic(`${this.runDir}/${FILES.state}`, rebuiltState);
    }
    this.incidents.splice(0, this.incidents.length, ...incidents);
    return { state, torn: parsed.torn, stateFile, incidentsRepaired };
  }

  writeReport(state: RunState): void {
    writeAtomic(`${this.runDir}/${FILES.report}`, renderReport(state, this.incidents), false);
  }
}
