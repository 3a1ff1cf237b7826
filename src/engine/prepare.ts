/**
 * Builds the initial run state from a plan and a fault script. Every fault is kept in the state with its
 * index: engine-side ones (reopen, taint) are injected by the engine, the rest travel to the targeted
 * node's worker, and each is marked fired when it takes effect, so one that never fires is visible.
 *
 * @module
 */
import type { Fault } from "../graph/scenario.ts";
import type { Plan } from "../graph/types.ts";
import { type FaultState, initialState, type Mode, type RunState } from "../model/state.ts";

export function prepare(plan: Plan, faults: readonly Fault[], scenario: string, mode: Mode): RunState {
  const list: FaultState[] = faults.map((f) => {
    const { kind, node, ...spec } = f as Fault & Record<string, unknown>;
    return { kind, node, spec, fired: false };
  });
  return initialState(plan, { scenario, mode, faults: list });
}
