/**
 * Builds the initial run state from a plan and a fault script: engine-side faults (reopen, taint) stay with
 * the engine, the rest are handed to the targeted node's worker.
 *
 * @module
 */
import type { Fault } from "../graph/scenario.ts";
import { ENGINE_FAULTS } from "../graph/scenario.ts";
import type { Plan } from "../graph/types.ts";
import { type EngineFault, initialState, type Mode, type RunState } from "../model/state.ts";

export function prepare(plan: Plan, faults: readonly Fault[], scenario: string, mode: Mode): RunState {
  const engine: EngineFault[] = [];
  const workerFaults: Record<string, Record<string, unknown>[]> = {};
  for (const f of faults) {
    if (ENGINE_FAULTS.has(f.kind) && (f.kind === "reopen" || f.kind === "taint")) {
      engine.push({
        kind: f.kind,
        node: f.node,
        when: f.when === "green" ? "green" : Number(f.when),
        fired: false,
      });
    } else {
      (workerFaults[f.node] ??= []).push({ ...f });
    }
  }
  return initialState(plan, { scenario, mode, faults: engine, workerFaults });
}
