/**
 * Run directories as the dashboard sees them: which names are runs, whether a run is still live, and the
 * summary the run list shows. Only names made of `[A-Za-z0-9_.-]` that are real directories (not links)
 * directly under the runs directory are runs, so no request can reach a path outside it; files inside are
 * read through plain_files.ts (no link followed, plain files only, sizes capped).
 *
 * @module
 */
import type { Verdict } from "../model/state.ts";
import { graphHeadline, treeHeadline } from "../record/headline.ts";
import type { NodeUsage } from "../record/usage_section.ts";
import { usageOf } from "./usage.ts";
import { isPlainFile, readPlain } from "./plain_files.ts";
import { Semaphore } from "./semaphore.ts";

/** What a run id may look like; a leading dot is refused too (`.`, `..`, hidden directories). */
export const RUN_ID = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

/** Largest state.json parsed for a summary or metrics; a bigger one is streamed as is, never parsed. */
export const STATE_CAP = 16 * 1024 * 1024;
const SMALL_CAP = 64 * 1024;

/** Parses of big files at once, across all requests: bounds the server's memory under many clients. */
export const heavy = new Semaphore(2);

/** live: no verdict and its arrow process holds the lock; stopped: no verdict and nobody drives it. */
export type RunPhase = "live" | "finished" | "stopped";

export interface RunSummary {
  id: string;
  scenario: string;
  mode: string;
  phase: RunPhase;
  verdict: Verdict | null;
  tick: number;
  incidents: number;
  question: string;
  started_at: string | null;
  /** graph: a task-graph run (opens in the graph view); tree: an `arrow tree` run (the tree view). */
  kind: "graph" | "tree";
  /** The run's metric, as its record names it (plan protocol, or the tree's config). */
  metric: string | null;
  /** The run's headline score on that metric, from what the record wrote; null while there is none. */
  score: number | null;
  /** What the score is: "final test", "held-out" (tree), "method", "best", "baseline" (graph). */
  score_of: string | null;
  /** LLM use per node from the run's usage files (calls, tokens, cost when reported); null without any. */
  usage: Record<string, NodeUsage> | null;
}

/** Tells whether the process that wrote a run's lock is still that process (pid reuse aware). */
export type AliveCheck = (pid: number, start: string | null) => boolean;

function isRealDir(path: string): boolean {
  try {
    return Deno.lstatSync(path).isDirectory;
  } catch {
    return false;
  }
}

/** The directory of run `id`, or null when `id` is not a run under `runsDir`. */
export function runDirOf(runsDir: string, id: string): string | null {
  if (!RUN_ID.test(id) || id.length > 200) return null;
  const dir = `${runsDir}/${id}`;
  if (!isRealDir(dir)) return null;
  // run.json alone: `arrow run` has created the run but not yet written its first tick.
  return ["replay.jsonl", "state.json", "run.json"].some((f) => isPlainFile(dir, f)) ? dir : null;
}

/** A JSON object from a plain file of at most `cap` bytes, or null. */
export async function readObject(
  dir: string,
  rel: string,
  cap: number,
): Promise<Record<string, unknown> | null> {
  const r = await readPlain(dir, rel, cap);
  if (!r.ok) return null;
  try {
    const v = JSON.parse(r.text);
    return v && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : null;
  } catch {
    return null;
  }
}

/** A run without a verdict is live while its lock names a running process. */
export async function phaseOf(dir: string, verdict: unknown, alive?: AliveCheck): Promise<RunPhase> {
  if (verdict) return "finished";
  const lock = await readObject(dir, ".arrow/lock", 4096);
  if (!lock || typeof lock.pid !== "number") return "stopped";
  if (!alive) return "live";
  return alive(lock.pid, typeof lock.start === "string" ? lock.start : null) ? "live" : "stopped";
}

/** The list's view of a run; fields a file does not give (or gives wrongly typed) fall back to "?" or 0. */
export async function summarize(runsDir: string, id: string, alive?: AliveCheck): Promise<RunSummary | null> {
  const dir = runDirOf(runsDir, id);
  if (!dir) return null;
  const state = (await heavy.run(() => readObject(dir, "state.json", STATE_CAP))) ?? {};
  const meta = (await readObject(dir, "run.json", SMALL_CAP)) ?? {};
  const plan = (state.plan ?? {}) as { question?: unknown };
  const verdict = typeof state.verdict === "string" ? state.verdict as Verdict : null;
  const text = (v: unknown) => (typeof v === "string" ? v.slice(0, 200) : undefined);
  const kind = isPlainFile(dir, "tree.db") || state.mode === "tree" || meta.mode === "tree"
    ? "tree"
    : "graph";
  return {
    id,
    scenario: text(state.scenario) ?? text(meta.scenario) ?? "?",
    mode: text(state.mode) ?? text(meta.mode) ?? "?",
    phase: await phaseOf(dir, verdict, alive),
    verdict,
    tick: Number.isSafeInteger(state.tick) ? state.tick as number : 0,
    incidents: Number.isSafeInteger(state.incidents) ? state.incidents as number : 0,
    question: typeof plan.question === "string" ? plan.question.slice(0, 2000) : "",
    started_at: text(meta.started_at) ?? null,
    kind,
    ...(kind === "tree" ? treeHeadline(state) : graphHeadline(state)),
    usage: await usageOf(dir),
  };
}

/** Every run under `runsDir`, live ones first, then newest first (run ids start with a timestamp). */
export async function listRuns(runsDir: string, alive?: AliveCheck): Promise<RunSummary[]> {
  let names: string[];
  try {
    // A link is not a directory entry here, so a run directory that is a symlink is never listed.
    names = [...Deno.readDirSync(runsDir)].filter((d) => d.isDirectory).map((d) => d.name);
  } catch {
    return [];
  }
  const runs: RunSummary[] = [];
  for (const n of names) {
    const s = await summarize(runsDir, n, alive);
    if (s) runs.push(s);
  }
  const rank = (r: RunSummary) => (r.phase === "live" ? 0 : 1);
  return runs.sort((a, b) => rank(a) - rank(b) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}
