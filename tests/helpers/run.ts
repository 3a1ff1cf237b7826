/**
 * Runs a built-in scenario in-process into a fresh temporary run directory.
 *
 * @module
 */
import { resolveBuiltin } from "../../src/cli/catalog.ts";
import { prepare } from "../../src/engine/prepare.ts";
import { startRun } from "../../src/engine/run.ts";
import type { Incident, RunState } from "../../src/model/state.ts";

export interface ScenarioRun {
  dir: string;
  state: RunState;
  incidents: Incident[];
  replayText: string;
  incidentsText: string;
  stateText: string;
}

export async function runScenario(
  name: string,
  opts: { tickMs?: number; dir?: string } = {},
): Promise<ScenarioRun> {
  const res = resolveBuiltin(name);
  const dir = opts.dir ?? await Deno.makeTempDir({ prefix: `arrow-${name}-` });
  const state = await startRun(prepare(res.plan, res.faults, name, "mock"), {
    runDir: dir,
    tickMs: opts.tickMs ?? 0,
    maxTicks: 2000,
  });
  const incidentsText = Deno.readTextFileSync(`${dir}/incidents.jsonl`);
  return {
    dir,
    state,
    incidents: incidentsText.split("\n").filter(Boolean).map((l) => JSON.parse(l)),
    replayText: Deno.readTextFileSync(`${dir}/replay.jsonl`),
    incidentsText,
    stateText: Deno.readTextFileSync(`${dir}/state.json`),
  };
}

export function statuses(state: RunState): Record<string, string> {
  return Object.fromEntries(
    state.plan.order.filter((id) => state.nodes[id]!.spawned).map((id) => [id, state.nodes[id]!.status]),
  );
}

/** An incident's evidence as a plain record, for tests that check its keys. */
export function ev(i: { evidence: unknown }): Record<string, unknown> {
  return i.evidence as Record<string, unknown>;
}
