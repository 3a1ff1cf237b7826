/**
 * The tree run's files people and the dashboard read, all projections of the SQLite store (rebuilt from it
 * on resume, so a crash between the store and a file loses nothing): `tree/replay.jsonl` (one canonical line
 * per step, `{tick, events: [event]}` — the shape the server's event feed follows; the last one carries the
 * `verdict` event; each line carries `prev`, the hash of the line before it, in the graph path's own chain,
 * its head in `.arrow/chain`), `incidents.jsonl` (the same Incident lines as the graph path), `state.json`
 * (the tree, canonical: as of the last step that settled a cycle, and of the last step once the loop stops)
 * and `report/report.md`. Wall-clock facts live in `run.json`, never here: the same run leaves the same bytes.
 *
 * @module
 */
import { canonical, canonicalPretty } from "../model/json.ts";
import type { Incident } from "../model/state.ts";
import { Chain, GENESIS, writeHead } from "../record/chain.ts";
import { appendDurable, writeAtomic } from "../runtime/atomic.ts";
import { Redactor } from "../llm/redact.ts";
import { renderTreeReport } from "./report.ts";
import { settles } from "./store.ts";
import type { TreeEvent, TreeState } from "./types.ts";

export const TREE_FILES = {
  replay: "tree/replay.jsonl",
  incidents: "incidents.jsonl",
  state: "state.json",
  report: "report/report.md",
  db: "tree.db",
} as const;

/** Redacts by pattern only (the run's own secret values never reach the state the report is made from). */
const KEYS = new Redactor([]);

export class TreeBlackBox {
  readonly #incidents: Incident[] = [];
  /** The replay's hash chain, the graph path's own (record/chain.ts): its head in .arrow/chain. */
  readonly #chain = new Chain();
  /** A state appended between cycles and not yet in state.json. */
  #unwritten: TreeState | null = null;

  constructor(readonly runDir: string) {
    Deno.mkdirSync(`${runDir}/tree`, { recursive: true });
    Deno.mkdirSync(`${runDir}/report`, { recursive: true });
    Deno.mkdirSync(`${runDir}/.arrow`, { recursive: true });
  }

  #line(tick: number, event: TreeEvent): string {
    return this.#chain.link({ tick, events: [event] }) + "\n";
  }

  #path(f: keyof typeof TREE_FILES): string {
    return `${this.runDir}/${TREE_FILES[f]}`;
  }

  /** Appends one step (its event, after the store committed it) and replaces the state. */
  append(event: TreeEvent, state: TreeState, incidents: readonly Incident[]): void {
    if (event.e === "init") {
      Deno.writeTextFileSync(this.#path("replay"), "");
      Deno.writeTextFileSync(this.#path("incidents"), "");
    }
    appendDurable(this.#path("replay"), this.#line(state.tick, event), false);
    writeHead(this.runDir, this.#chain.at);
    appendDurable(this.#path("incidents"), incidents.map((i) => canonical(i) + "\n").join(""), false);
    this.#incidents.push(...incidents);
    // state.json when the step settles a cycle (the dashboard folds the replay itself; a resume rebuilds
    // every projection from the store), and whatever is left unwritten when the loop stops (`flush`).
    this.#unwritten = settles(event, state) ? null : state;
    if (!this.#unwritten) writeAtomic(this.#path("state"), canonicalPretty(state), false);
    if (state.pending === null || event.e === "init") this.report(state, this.#incidents);
  }

  /** Writes state.json from the last appended state if a step between cycles left it behind. */
  flush(): void {
    if (this.#unwritten) writeAtomic(this.#path("state"), canonicalPretty(this.#unwritten), false);
    this.#unwritten = null;
  }

  /** Rewrites every projection from the store's events (with the tick each ended on), incidents and state. */
  rebuild(
    events: readonly TreeEvent[],
    ticks: readonly number[],
    incidents: readonly Incident[],
    state: TreeState,
  ): void {
    this.#chain.resumeAt({ head: GENESIS, lines: 0 });
    writeAtomic(this.#path("replay"), events.map((e, i) => this.#line(ticks[i]!, e)).join(""), false);
    writeHead(this.runDir, this.#chain.at);
    writeAtomic(this.#path("incidents"), incidents.map((i) => canonical(i) + "\n").join(""), false);
    writeAtomic(this.#path("state"), canonicalPretty(state), false);
    this.#incidents.splice(0, this.#incidents.length, ...incidents);
    this.report(state, incidents);
  }

  /** The report for people, with anything key-like (an `sk-…` in a CSV value an LLM echoed) redacted. */
  report(state: TreeState, incidents: readonly Incident[]): void {
    writeAtomic(this.#path("report"), KEYS.text(renderTreeReport(state, incidents)), false);
  }
}
