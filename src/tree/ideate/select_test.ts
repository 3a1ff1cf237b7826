import { equal } from "node:assert/strict";
import { fakeStart, folds, hyp, ok, run } from "../../../tests/tree_fake.ts";
import { chooseParent, explorationScale, shrunkGains, ucb } from "./select.ts";
import type { TreeEvent } from "../types.ts";

function grown(search: "tree" | "greedy" | "random") {
  const events: TreeEvent[] = [
    { e: "executed", results: [ok("n0", folds(0.8))] },
    { e: "gated", node: "n0", score: 0.8, problem: null, escapes: [] },
    { e: "proposed", parent: "n0", hypotheses: [hyp("a"), hyp("b", "log")], problems: [], tokens: 0 },
    { e: "executed", results: [ok("n1", folds(0.8, 0.002)), ok("n2", folds(0.8, 0.001))] },
  ];
  return run(fakeStart({ search }), events).state;
}

Deno.test("chooseParent() by UCB prefers a fresh node with dev gain over the much-visited root", () => {
  const s = grown("tree");
  equal(s.incumbent, "n0");
  equal(chooseParent(s), "n1");
  equal(ucb(s, s.nodes.n1!) > ucb(s, s.nodes.n0!), true);
  equal(ucb(s, s.nodes.n1!) > ucb(s, s.nodes.n2!), true);
});

Deno.test("chooseParent() in greedy mode always extends the incumbent", () => {
  equal(chooseParent(grown("greedy")), "n0");
});

Deno.test("chooseParent() in random mode draws from the seed: the same state, the same pick", () => {
  const s = grown("random");
  const pick = chooseParent(s);
  equal(chooseParent(s), pick);
  equal(["n0", "n1", "n2"].includes(pick!), true);
});

Deno.test("UCB's exploration scale: with insights, the spread of the children's measured gains; without, one fold's noise", () => {
  const s = grown("tree");
  const fold = s.nodes.n0!.dev!.std;
  // n1 gained 0.002 and n2 0.001 over the root: their spread, not the root's fold spread (0.01).
  const gains = [0.002, 0.001];
  const sd = Math.abs(gains[0]! - gains[1]!) / Math.SQRT2;
  equal(Math.abs(explorationScale(s) - Math.max(sd, 0.001)) < 1e-9, true, String(explorationScale(s)));
  equal(explorationScale({ ...s, config: { ...s.config, insights: false } }), fold);
  // One measured child is not yet a spread: the fold's noise.
  const one = run(fakeStart({ search: "tree" }), [
    { e: "executed", results: [ok("n0", folds(0.8))] },
    { e: "gated", node: "n0", score: 0.8, problem: null, escapes: [] },
    { e: "proposed", parent: "n0", hypotheses: [hyp("a")], problems: [], tokens: 0 },
    { e: "executed", results: [ok("n1", folds(0.8, 0.03))] },
  ]).state;
  equal(explorationScale(one), one.nodes.n0!.dev!.std);
  // Wide children widen it.
  const wide = structuredClone(s);
  wide.nodes.n1!.dev!.mean += 0.05;
  equal(explorationScale(wide) > 0.03, true);
});

Deno.test("UCB with insights reads each node's own gain shrunk toward its family's effect; without, the raw gain", () => {
  // Three children of the root: n1 (ratio) gained 0.004, n2 (log) 0.003, n3 (ratio) 0.001 on dev.
  const s = run(fakeStart({ search: "tree" }), [
    { e: "executed", results: [ok("n0", folds(0.8))] },
    { e: "gated", node: "n0", score: 0.8, problem: null, escapes: [] },
    {
      e: "proposed",
      parent: "n0",
      hypotheses: [hyp("a", "ratio"), hyp("b", "log"), hyp("c", "ratio")],
      problems: [],
      tokens: 0,
    },
    {
      e: "executed",
      results: [ok("n1", folds(0.8, 0.004)), ok("n2", folds(0.8, 0.003)), ok("n3", folds(0.8, 0.001))],
    },
  ]).state;
  const rows = (z: number) => ({ loss: "logloss" as const, gain: z * 0.001, se: 0.001, n: 100, z });
  // Per row, n1's ratio step looked strong (z 3) but the same family failed as strongly on n3 (z −3);
  // n2's log step is as strong, and its family never failed.
  s.nodes.n1!.insight!.rows = rows(3);
  s.nodes.n3!.insight!.rows = rows(-3);
  s.nodes.n2!.insight!.rows = rows(3);
  const g = shrunkGains(s);
  // ratio: n1's one mate (z −3, pooled −3/2) says nothing of the spread, so n1's z goes halfway to it:
  // (3 − 1.5)/2 = 0.75 of 3, 0.004 → 0.001. log, alone: halfway toward none, 0.003 → 0.0015.
  equal(Math.abs(g.get("n1")! - 0.001) < 1e-9, true, String(g.get("n1")));
  equal(Math.abs(g.get("n2")! - 0.0015) < 1e-9, true, String(g.get("n2")));
  equal(g.get("n0"), 0);
  // With insights the log step is expanded first; without, the raw dev gains pick the ratio step.
  equal(chooseParent(s), "n2");
  equal(chooseParent({ ...s, config: { ...s.config, insights: false } }), "n1");
  // The root's value is the mean of its subtree's shrunk gains, below the best child's.
  equal(ucb(s, s.nodes.n0!, g) < ucb(s, s.nodes.n2!, g), true);
});
