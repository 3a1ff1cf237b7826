/**
 * Builds the initial run state from a plan and a fault script. Every fault is kept in the state with its
 * index: engine-side ones (reopen, taint) are injected by the engine, the rest travel to the targeted
 * node's worker, and each is marked fired when it takes effect, so one that never fires is visible. Sweeps
 * are expanded here, before the first tick, so the initial state holds every configuration node.
 *
 * @module
 */
import type { Fault } from "../graph/scenario.ts";
import { expandSweeps } from "../graph/sweep_expand.ts";
import type { Plan } from "../graph/types.ts";
import { type FaultState, initialState, type Mode, type RunState } from "../model/state.ts";

export function prepare(plan: Plan, faults: readonly Fault[], scenario: string, mode: Mode): RunState {
  const run = expandSweeps(plan);
  const list: FaultState[] = faults.flatMap((f) => {
    const { kind, node, ...spec } = f as Fault & Record<string, unknown>;
    // A fault aimed at a sweep node is aimed at every one of its configurations.
    const group = run.sweeps?.find((g) => g.node === node);
    return (group ? group.configs.map((c) => c.id) : [node]).map((n) => ({
      kind,
      node: n,
      spec,
      fired: false,
    }));
  });
  return initialState(run, { scenario, mode, faults: list });
}
