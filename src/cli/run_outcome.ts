/**
 * How a graph run ends, for `arrow run`, `arrow research` and `arrow resume`: the end of its process recorded
 * in run.json, and the outcome printed — the status table and verdict, or one `--json` object.
 *
 * @module
 */
import { canonicalPretty } from "../model/json.ts";
import type { RunState } from "../model/state.ts";
import { judge } from "../overwatch/verdict.ts";
import { writeAtomic } from "../runtime/atomic.ts";
import { printable } from "./escape.ts";
import { statusTable } from "./progress.ts";

/** The object `arrow run --json` prints, without its incidents. */
export function summary(state: RunState, runDir: string) {
  const spawned = state.plan.order.filter((id) => state.nodes[id]!.spawned);
  const j = judge(state);
  const score = (id: string) => {
    const ns = state.nodes[id]!;
    return ns.manifest?.score ?? ns.best ?? null;
  };
  return {
    scenario: state.scenario,
    verdict: state.verdict,
    run_dir: runDir,
    ticks: state.tick,
    nodes: Object.fromEntries(spawned.map((id) => [id, state.nodes[id]!.status])),
    scores: Object.fromEntries(spawned.map((id) => [id, score(id)])),
    baseline: j.detail.baseline ? { node: j.detail.baseline, score: j.detail.baseline_score } : null,
    method: j.detail.method ?? null,
    reason: j.detail.reason ?? null,
    unfired_faults: state.faults.filter((f) => !f.fired).map((f) => ({ kind: f.kind, node: f.node })),
  };
}

/**
 * Records the end of a run's process in run.json (wall-clock facts live there, not in the black box) and,
 * when it ended without a verdict (interrupted), says how to continue. Returns true when it has a verdict.
 */
export function recordEnd(
  cmd: string,
  runDir: string,
  meta: Record<string, unknown>,
  times: Record<string, unknown>,
  state: RunState,
): boolean {
  writeAtomic(
    `${runDir}/run.json`,
    canonicalPretty({ ...meta, ...times, verdict: state.verdict, ticks: state.tick }),
  );
  if (state.verdict !== null) return true;
  console.error(`arrow ${cmd}: interrupted at tick ${state.tick}; continue with: arrow resume ${runDir}`);
  return false;
}

export function printOutcome(final: RunState, runDir: string, json: boolean, quiet: boolean): number {
  if (json) {
    const incidents = readIncidents(runDir).map((i) => ({
      tick: i.tick,
      type: i.type,
      node: i.node,
      ladder: i.ladder,
    }));
    console.log(JSON.stringify({ ...summary(final, runDir), incidents }));
    return 0;
  }
  if (!quiet) console.log("\n" + statusTable(final) + "\n");
  const unfired = final.faults.filter((f) => !f.fired);
  if (unfired.length) {
    console.log(`faults that never fired: ${unfired.map((f) => `${f.kind} on ${f.node}`).join(", ")}`);
  }
  const j = judge(final);
  console.log(`${final.verdict}`);
  if (!quiet && j.detail.reason) console.log(`  ${printable(j.detail.reason)}`);
  console.log(`run directory: ${runDir}`);
  return 0;
}

export function readIncidents(
  runDir: string,
): { tick: number; type: string; node: string; ladder: string }[] {
  return Deno.readTextFileSync(`${runDir}/incidents.jsonl`).split("\n").filter(Boolean).map((l) =>
    JSON.parse(l)
  );
}
