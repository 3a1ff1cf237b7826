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
import { Chain, readHead, writeHead } from "./chain.ts";
import { finalState, parseReplay } from "./replay.ts";
import { renderReport } from "./report.ts";
import { stateText } from "./state_text.ts";
import { verdictProblem } from "./verdict_check.ts";

/** state.json is rewritten at most this often while a run goes (replay.jsonl is the authority; the last
 * state is always written at the end), so a long run of a large plan does not rewrite it every tick. */
const STATE_EVERY_MS = 1000;

/** The black box was tampered with: a line edited, dropped, inserted or appended by someone else. */
export class TamperedError extends Error {
  override name = "TamperedError";
}

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
  /** state.json: replaced atomically and fsynced, in the background so the loop does not wait. */
  readonly #state: LatestWriter;
  /** The chain: hash of the last line written, and how many lines there are. */
  readonly #chain = new Chain();
  #pending: RunState | null = null;
  #lastState = 0;

  constructor(readonly runDir: string) {
    Deno.mkdirSync(`${runDir}/report`, { recursive: true });
    Deno.mkdirSync(`${runDir}/.arrow`, { recursive: true });
    this.#state = new LatestWriter(`${runDir}/${FILES.state}`);
  }

  /** Waits until the latest state.json is on disk. */
  flush(): Promise<void> {
    if (this.#pending) this.#state.write(stateText(this.#pending));
    this.#pending = null;
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
    // Written through to the OS every tick (a killed arrow loses nothing); not fsynced: a power cut can at
    // worst cost the last ticks, which a resume runs again.
    const text = this.#chain.link(line);
    appendDurable(`${this.runDir}/${FILES.replay}`, text + "\n", false);
    writeHead(this.runDir, this.#chain.at);
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
    const now = Date.now();
    if (line.tick === 0 || state.verdict !== null || now - this.#lastState >= STATE_EVERY_MS) {
      this.#state.write(stateText(state));
      this.#pending = null;
      this.#lastState = now;
    } else this.#pending = state;
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
    const tamper = chainProblem(parsed, readHead(this.runDir)) ?? verdictProblem(parsed.lines);
    if (tamper) throw new TamperedError(`Cannot resume ${this.runDir}: replay.jsonl ${tamper}`);
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
    this.#chain.resumeAt({ head: parsed.head, lines: parsed.lines.length });
    return { state, torn: parsed.torn, stateFile, incidentsRepaired };
  }

  writeReport(state: RunState): void {
    writeAtomic(`${this.runDir}/${FILES.report}`, renderReport(state, this.incidents), false);
  }
}

/**
 * What is wrong with a replay's chain, or null: a line that does not follow from the one before it, or a
 * file that does not end where arrow last wrote (lines appended by someone else, or the last one edited).
 */
export function chainProblem(
  parsed: { lines: ReplayLine[]; head: string; broken?: { line: number; reason: string } },
  head: { lines: number; head: string } | null,
): string | null {
  if (parsed.broken) {
    const n = parsed.broken.line;
    return `line ${n} ${parsed.broken.reason} (line ${
      n - 1
    } or ${n} was edited, or lines were dropped or inserted there)`;
  }
  if (!head) return null;
  const n = parsed.lines.length;
  // A crash between appending a line and recording the head leaves exactly one line past it, chained to it.
  const crashed = n === head.lines + 1 && parsed.lines[n - 1]!.prev === head.head;
  if (n > head.lines && !crashed) {
    return `has ${n - head.lines} line(s) after line ${head.lines} that arrow never wrote`;
  }
  if (n < head.lines) {
    return `ends at line ${n}, but arrow wrote ${head.lines} lines: the last ${head.lines - n} were dropped`;
  }
  if (parsed.lines.length === head.lines && parsed.head !== head.head) {
    return `line ${head.lines}, the last one, differs from what arrow wrote`;
  }
  return null;
}
