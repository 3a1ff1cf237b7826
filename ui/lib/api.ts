/**
 * The client's view of the server's read-only API: where things are and what comes back.
 *
 * @module
 */
import type { ReplayLine } from "../../src/model/events.ts";
import type { RunSummary } from "../../src/server/runs.ts";

export type { RunSummary };

const runPath = (id: string) => `/api/runs/${encodeURIComponent(id)}`;

async function ok(res: Response): Promise<Response> {
  if (!res.ok) {
    const body = await res.json().catch(() => ({})) as { error?: string };
    throw new Error(body.error ?? `HTTP ${res.status}`);
  }
  return res;
}

export async function fetchRuns(): Promise<RunSummary[]> {
  return await (await ok(await fetch("/api/runs"))).json() as RunSummary[];
}

export async function fetchSummary(id: string): Promise<RunSummary> {
  return await (await ok(await fetch(`${runPath(id)}/summary`))).json() as RunSummary;
}

/** Every complete replay line so far. */
export async function fetchReplay(id: string): Promise<ReplayLine[]> {
  const text = await (await ok(await fetch(`${runPath(id)}/replay`))).text();
  return text.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as ReplayLine);
}

export interface Integrity {
  checked: boolean;
  /** What is wrong with the black box (an edited, dropped or forged line), or null when it holds. */
  problem: string | null;
  why?: string;
}

/** The server's check of a run's black box: its hash chain, and every verdict one the record implies. */
export async function fetchIntegrity(id: string): Promise<Integrity> {
  return await (await ok(await fetch(`${runPath(id)}/integrity`))).json() as Integrity;
}

/** The event stream of a run, resuming after `tick`; the browser resumes by itself after a drop. */
export function eventsUrl(id: string, after: number): string {
  return `${runPath(id)}/events?after=${after}`;
}
