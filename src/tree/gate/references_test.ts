import { deepEqual, equal, match } from "node:assert/strict";
import { fakeStart } from "../../../tests/tree_fake.ts";
import { decodeState, encodeState } from "../../tabular/mod.ts";
import { pathWarnings } from "../report.ts";
import { flagsOf } from "../step.ts";
import type { FinalReferences } from "../types.ts";

const refs = (refit: number | null, strong: number, trivial: number): FinalReferences => ({
  refit: { node: "n1", score: refit, problem: refit === null ? "it exited with 3" : null },
  strong_default: { score: strong, problem: null },
  trivial: { score: trivial },
});

Deno.test("flagsOf() flags an admitted result at or below the trivial baseline, and below the strong default", () => {
  const s = fakeStart({ metric: "accuracy", direction: "maximize" });
  deepEqual(flagsOf(s, 0.7, refs(0.8, 0.79, 0.6)), [], "above both: nothing to flag");
  const below = flagsOf(s, 0.7, refs(0.6, 0.79, 0.6));
  equal(below.length, 2);
  match(below[0]!, /^BELOW TRIVIAL: the admitted result \(refit, accuracy 0\.6000\)/);
  match(below[1]!, /^BELOW STRONG DEFAULT/);
  // A failed refit falls back on the dev-only fit's score, and says so.
  match(flagsOf(s, 0.5, refs(null, 0.4, 0.6))[0]!, /\(dev-only fit, accuracy 0\.5000\) does not beat/);
  const rmse = fakeStart({ metric: "rmse", direction: "minimize" });
  deepEqual(flagsOf(rmse, 2, refs(1.0, 1.2, 3)), [], "lower is better for rmse");
  equal(flagsOf(rmse, 2, refs(1.3, 1.2, 3)).length, 1);
});

Deno.test("a fitted step state survives JSON: Maps, Sets, typed arrays and non-finite numbers", () => {
  const state = [
    { levels: new Map([["a", [0.5, 1]], ["b", [2, 3]]]), kept: new Set(["x", "y"]) },
    { edges: Float64Array.from([1.5, 2.5]), inf: Infinity },
    null,
  ];
  const back = decodeState(JSON.parse(JSON.stringify(encodeState(state))));
  deepEqual(back, state);
});

Deno.test("pathWarnings() warns when a step of the admitted path climbs on dev while held-out falls", () => {
  const s = fakeStart({ metric: "accuracy", direction: "maximize" });
  const n0 = s.nodes.n0!;
  n0.dev = { mean: 0.7, std: 0.01, folds: [0.7] };
  n0.heldout = 0.72;
  const child = (id: string, parent: string, dev: number, heldout: number) => {
    s.nodes[id] = {
      ...structuredClone(n0),
      id,
      parent,
      dev: { mean: dev, std: 0.01, folds: [dev] },
      heldout,
    };
    s.order.push(id);
  };
  child("n1", "n0", 0.75, 0.74);
  child("n2", "n1", 0.8, 0.73);
  s.incumbent = "n2";
  const w = pathWarnings(s);
  equal(w.length, 1);
  match(w[0]!, /n2 climbed on dev \(\+0\.0500 vs n1\) while held-out fell \(−0\.0100\)/);
  s.incumbent = "n1";
  deepEqual(pathWarnings(s), [], "n0 → n1 rose on both");
});
