/**
 * What the run-level commands (`report`, `replay`, `resume`) do with a tree run, whose black box is a
 * SQLite store with projections (tree/replay.jsonl, state.json, report/report.md) instead of a hash-chained
 * replay.jsonl.
 *
 * @module
 */
import { canonical, canonicalPretty } from "../model/json.ts";
import { Redactor } from "../llm/redact.ts";
import { chainProblem } from "../record/blackbox.ts";
import { readHead } from "../record/chain.ts";
import { mdInline } from "../record/md_escape.ts";
import { parseReplay } from "../record/replay.ts";
import { heading, section } from "../record/render.ts";
import { ideatorUseSection, LLM_USE } from "../record/usage_section.ts";
import {
  foldEvents,
  LLM_LOG,
  llmUseOf,
  rowsUsed,
  step,
  summarize,
  TREE_FILES,
  TreeBlackBox,
  TreeStore,
} from "../tree/mod.ts";
import type { TreeEvent, TreeState } from "../tree/mod.ts";
import { InputError } from "./errors.ts";
import { printable } from "./escape.ts";
import { exists } from "./rundir.ts";

/** A tree run is one whose directory holds the tree's store. */
export function isTreeRun(runDir: string): boolean {
  return exists(`${runDir}/${TREE_FILES.db}`);
}

const NOTES = "Data as read";
const NOTES_HEADING = heading(NOTES)[0]!;

const LLM_HEADING = heading(LLM_USE)[0]!;

/** The LLM ideator's calls (logs/llm.jsonl, one line per call), tokens and cost when the API reported one. */
function llmSection(runDir: string): string | null {
  let text: string;
  try {
    text = Deno.readTextFileSync(`${runDir}/${LLM_LOG}`);
  } catch {
    return null;
  }
  const use = llmUseOf(text);
  return use ? ideatorUseSection(use).join("\n") : null;
}

/** The sections arrow tree adds to the store's report: the data as read, then the LLM ideator's use. */
function extraSections(runDir: string, text: string): string | null {
  const parts = [
    text.includes(NOTES_HEADING) ? null : dataSection(runDir),
    text.includes(LLM_HEADING) ? null : llmSection(runDir),
  ].filter((p): p is string => p !== null);
  return parts.length ? parts.join("\n") : null;
}

/** The decisions made reading the user's CSV (run.json's data_notes, written by arrow tree) as a section. */
function dataSection(runDir: string): string | null {
  let notes: unknown;
  try {
    notes = JSON.parse(Deno.readTextFileSync(`${runDir}/run.json`)).data_notes;
  } catch {
    return null;
  }
  if (!Array.isArray(notes) || !notes.length) return null;
  const keys = new Redactor([]);
  return section(NOTES, notes.map((n) => `- ${mdInline(keys.text(String(n)), { max: 400 })}`)).join("\n");
}

/**
 * Appends the data and LLM-use sections to report/report.md unless they are there: the tree's black box rewrites the report
 * from the store at each finished step, and the store does not hold what the CLI decided reading the CSV.
 */
export function addDataNotes(runDir: string): void {
  const path = `${runDir}/${TREE_FILES.report}`;
  try {
    const text = Deno.readTextFileSync(path);
    const section = extraSections(runDir, text);
    if (section) Deno.writeTextFileSync(path, `${text.trimEnd()}\n\n${section}`);
  } catch {
    // no report yet: the next finished step writes one, and arrow report adds the section when it prints
  }
}

/** The tree run's report as it wrote it (report/report.md, rewritten at every finished step). */
export function treeReport(runDir: string): string {
  try {
    const text = Deno.readTextFileSync(`${runDir}/${TREE_FILES.report}`);
    const section = extraSections(runDir, text);
    return section ? `${text.trimEnd()}\n\n${section}` : text;
  } catch {
    throw new InputError(`arrow report: ${runDir}/${TREE_FILES.report} is missing`, [
      `this is a tree run; rebuild its files from its store with: arrow resume ${runDir}`,
    ]);
  }
}

function readLines(runDir: string): { tick: number; event: TreeEvent }[] {
  const path = `${runDir}/${TREE_FILES.replay}`;
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch {
    throw new InputError(`arrow replay: ${path} is missing (this is a tree run)`, [
      `rebuild it from the run's store with: arrow resume ${runDir}`,
    ]);
  }
  return text.split("\n").flatMap((l, i) => {
    if (!l) return [];
    try {
      const o = JSON.parse(l) as { tick: number; events: TreeEvent[] };
      if (typeof o.tick !== "number" || !Array.isArray(o.events)) throw new SyntaxError("not a step");
      return o.events.map((event) => ({ tick: o.tick, event }));
    } catch (e) {
      throw new InputError(`arrow replay: ${path}:${i + 1}: not a step line (${(e as Error).message})`);
    }
  });
}

const f4 = (x: number | null | undefined) => (x === null || x === undefined ? "—" : x.toFixed(4));

/** One line per step, as the run printed it live (text from LLMs and CSVs escaped). */
function describe(s: TreeState, ev: TreeEvent): string | null {
  switch (ev.e) {
    case "init":
      return `start: ${rowsUsed(s.dataset)}, target ${
        printable(s.dataset.target)
      } (${s.dataset.task}), ${s.config.metric}`;
    case "proposed":
      return `cycle ${s.cycle}: expand ${ev.parent} → ${ev.hypotheses.length} hypothesis(es)`;
    case "executed":
      return ev.results.map((r) => {
        const n = s.nodes[r.node];
        return `  ${r.node} ${n?.status ?? "?"}: dev ${f4(n?.dev?.mean)}${
          n?.insight ? ` (${n.insight.outcome})` : ""
        }`;
      }).join("\n");
    case "gated": {
      const n = s.nodes[ev.node];
      return `  gate ${ev.node}: held-out ${f4(n?.heldout)} → ${n?.gate ?? "?"}`;
    }
    case "verdict":
      return `final test: start ${f4(s.final?.start)}, best ${f4(s.final?.best)}\n\n${s.verdict}`;
    default:
      return null;
  }
}

/**
 * Re-renders a tree run step by step from tree/replay.jsonl; with `check`, also proves that folding those
 * steps gives state.json byte for byte, that the lines' hash chain holds (the graph path's, record/chain.ts)
 * and that they are the store's events, in order (the store is the authority). Returns the exit code.
 */
export function treeReplay(runDir: string, o: { check: boolean; json: boolean }): number {
  const lines = readLines(runDir);
  if (!lines.length) throw new InputError(`arrow replay: ${runDir}/${TREE_FILES.replay} is empty`);
  let state: TreeState | null = null;
  for (const { tick, event } of lines) {
    if (event.e === "init") state = event.state;
    else if (!state) {
      throw new InputError(`arrow replay: ${runDir}/${TREE_FILES.replay}: the first step is not init`);
    } else state = step(state, event).state;
    const text = o.json ? null : describe(state, event);
    if (text) console.log(`step ${String(tick).padStart(3)}  ${text}`);
  }
  const rebuilt = canonicalPretty(state!);
  if (o.json) console.log(rebuilt.trimEnd());
  if (!o.check) return 0;
  let onDisk = "";
  try {
    onDisk = Deno.readTextFileSync(`${runDir}/${TREE_FILES.state}`);
  } catch {
    onDisk = "";
  }
  if (onDisk !== rebuilt) {
    console.error("arrow replay: the state rebuilt from tree/replay.jsonl differs from state.json");
    return 1;
  }
  const chained = parseReplay(Deno.readTextFileSync(`${runDir}/${TREE_FILES.replay}`));
  const tamper = chainProblem(chained, readHead(runDir));
  if (tamper) {
    console.error(`arrow replay: tree/replay.jsonl ${tamper}`);
    return 1;
  }
  const store = TreeStore.open(`${runDir}/${TREE_FILES.db}`);
  let events: TreeEvent[];
  try {
    events = store.events();
  } finally {
    store.close();
  }
  const differs = events.length !== lines.length
    ? `the store holds ${events.length} steps, tree/replay.jsonl ${lines.length}`
    : events.findIndex((e, i) => canonical(e) !== canonical(lines[i]!.event));
  if (typeof differs === "string" || differs >= 0) {
    console.error(
      `arrow replay: tree/replay.jsonl is not the store's record: ${
        typeof differs === "string" ? differs : `step line ${differs + 1} differs`
      }`,
    );
    return 1;
  }
  if (canonicalPretty(foldEvents(events).state) !== rebuilt) {
    console.error("arrow replay: the store's events fold to a different state");
    return 1;
  }
  if (!o.json) {
    console.log(
      "rebuilt state equals state.json byte for byte, the hash chain holds, and every step is the store's " +
        "(tree.db) own",
    );
  }
  return 0;
}

/**
 * `arrow tree --resume` (and `arrow resume`) on a tree run that already has its verdict: nothing runs. Its
 * files are rewritten from the store (so a lost report or state.json comes back, as resume promises) and
 * it says so plainly; returns false when the run is not finished (the caller resumes it). Holds no lock:
 * the caller does.
 */
export function nothingToResume(runDir: string, json: boolean): boolean {
  const store = TreeStore.open(`${runDir}/${TREE_FILES.db}`);
  try {
    const events = store.events();
    const { state } = foldEvents(events);
    if (state.verdict === null || state.pending !== null) return false;
    const files = Object.values(TREE_FILES).filter((f) => f !== TREE_FILES.db);
    const read = () =>
      files.map((f) => (exists(`${runDir}/${f}`) ? Deno.readTextFileSync(`${runDir}/${f}`) : null));
    const before = read();
    const incidents = store.incidents();
    new TreeBlackBox(runDir).rebuild(events, events.map((_, i) => i), incidents, state);
    addDataNotes(runDir);
    const repaired = read().some((t, i) => t !== before[i]);
    if (json) {
      console.log(JSON.stringify({ ...summarize(state, runDir, incidents), resumed: false, repaired }));
    } else {
      console.log(
        `${
          printable(runDir)
        } already finished at step ${state.tick} with ${state.verdict}; nothing to resume${
          repaired ? " (its files were rebuilt from its store, tree.db)" : ""
        }. See: arrow report ${printable(runDir)}`,
      );
    }
    return true;
  } finally {
    store.close();
  }
}
