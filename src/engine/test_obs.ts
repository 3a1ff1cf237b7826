/**
 * Test helper for the engine's unit tests: the observations of one tick in which every running node is seen
 * (nothing changed) and the named ones exit 0 with an accepted `{node: id}` manifest.
 *
 * @module
 */
import { emptyNodeObs, emptyObservations, type NodeObs, type Observations } from "../model/observe.ts";
import type { RunState } from "../model/state.ts";

export function finishing(s: RunState, finish: readonly string[] = []): Observations {
  const obs: Observations = emptyObservations(s.tick + 1);
  for (const [id, ns] of Object.entries(s.nodes)) {
    if (ns.status !== "running") continue;
    const o: NodeObs = { ...emptyNodeObs(ns.fp) };
    if (finish.includes(id)) {
      o.done = {
        exit: 0,
        accept: { argv: ["@manifest"], code: 0, stdout: "", stderr: "" },
        manifest: { node: id },
      };
    }
    obs.nodes[id] = o;
  }
  return obs;
}
