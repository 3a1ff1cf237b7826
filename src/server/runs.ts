/**
 * Run directories as the dashboard sees them: which names are runs, whether a run is still live, and the
 * files the API serves. Only names made of `[A-Za-z0-9_.-]` that exist as real directories directly under
 * the runs directory are runs, so no request can reach a path outside it.
 *
 * @module
 */
import type { Verdict } from "../model/state.ts";

/** What a run id may look like; a leading dot is refused too (`.`, `..`, hidden directories). */
export const RUN_ID = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

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

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
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
  return ["replay.jsonl", "state.json", "run.json"].some((f) => isFile(`${dir}/${f}`)) ? dir : null;
}

function readJson(path: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(Deno.readTextFileSync(path));
    return v && typeof v === "object" ? v as Record<string, unknown> : null;
  } catch {
    return null;
  }
}

/** A run without a verdict is live while its lock names a running process. */
export function phaseOf(dir: string, verdict: unknown, alive?: AliveCheck): RunPhase {
  if (verdict) return "finished";
  const lock = readJson(`${dir}/.arrow/lock`);
  if (!lock) return "stopped";
  if (!alive || typeof lock.pid !== "number") return "live";
  return alive(lock.pid, typeof lock.start === "string" ? lock.start : null) ? "live" : "stopped";
}

export function summarize(runsDir: string, id: string, alive?: AliveCheck): RunSummary | null {
  const dir = runDirOf(runsDir, id);
  if (!dir) return null;
  const state = readJson(`${dir}/state.json`) ?? {};
  const meta = readJson(`${dir}/run.json`) ?? {};
  const plan = (state.plan ?? {}) as { question?: unknown };
  const verdict = (state.verdict ?? null) as Verdict | null;
  return {
    id,
    scenario: String(state.scenario ?? meta.scenario ?? "?"),
    mode: String(state.mode ?? meta.mode ?? "?"),
    phase: phaseOf(dir, verdict, alive),
    verdict,
    tick: typeof state.tick === "number" ? state.tick : 0,
    incidents: typeof state.incidents === "number" ? state.incidents : 0,
    question: typeof plan.question === "string" ? plan.question : "",
    started_at: typeof meta.started_at === "string" ? meta.started_at : null,
  };
}

/** Every run under `runsDir`, live ones first, then newest first (run ids start with a timestamp). */
export function listRuns(runsDir: string, alive?: AliveCheck): RunSummary[] {
  let names: string[];
  try {
    names = [...Deno.readDirSync(runsDir)].filter((d) => d.isDirectory).map((d) => d.name);
  } catch {
    return [];
  }
  const runs = names.map((n) => summarize(runsDir, n, alive)).filter((r): r is RunSummary => r !== null);
  const rank = (r: RunSummary) => (r.phase === "live" ? 0 : 1);
  return runs.sort((a, b) => rank(a) - rank(b) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

/** The complete lines of a JSONL file; a torn last line (an append in progress) is left out. */
export async function readJsonl(path: string): Promise<string[] | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch {
    return null;
  }
  const end = text.lastIndexOf("\n");
  return end < 0 ? [] : text.slice(0, end).split("\n").filter((l) => l.trim() !== "");
}

export async function readText(path: string): Promise<string | null> {
  try {
    return await Deno.readTextFile(path);
  } catch {
    return null;
  }
}
