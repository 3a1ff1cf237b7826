import { deepEqual, equal } from "node:assert/strict";
import { fakeStart, folds, hyp, ok, run } from "../../../tests/tree_fake.ts";
import { chooseParent, expectedGain, fertility, improvements, ucb } from "./select.ts";
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

Deno.test("expectedGain() is E[max(0, X − target)] of a normal; fertility() shrinks a node's children toward the tree's", () => {
  const close = (a: number, b: number, eps = 1e-6) => equal(Math.abs(a - b) < eps, true, `${a} vs ${b}`);
  close(expectedGain(0, 1, 0), 1 / Math.sqrt(2 * Math.PI));
  close(expectedGain(0.5, 0, 0.2), 0.3);
  close(expectedGain(0.1, 0, 0.2), 0);
  // Far below the target, almost nothing; far above, the mean's excess.
  equal(expectedGain(-5, 1, 0) < 1e-5, true);
  close(expectedGain(5, 1, 0), 5, 1e-5);
  const prior = { mean: 0.01, variance: 0.02 ** 2 };
  // No children: the tree's record. Many children that improved nothing: a small mean and spread.
  deepEqual(fertility([], prior), { mean: 0.01, sd: 0.02 });
  const barren = fertility(Array(10).fill(0), prior);
  equal(barren.mean < 0.002 && barren.sd < 0.01, true, JSON.stringify(barren));
  // Children that differed widely keep the node worth expanding.
  const varied = fertility([0, 0.06, 0, 0.05], prior);
  equal(varied.sd > prior.variance ** 0.5 && varied.mean > prior.mean, true, JSON.stringify(varied));
});

Deno.test("chooseParent() with insights: a node whose children improved nothing gives way to a fresh one", () => {
  const events: TreeEvent[] = [
    { e: "executed", results: [ok("n0", folds(0.8))] },
    { e: "gated", node: "n0", score: 0.8, problem: null, escapes: [] },
    { e: "proposed", parent: "n0", hypotheses: [hyp("a"), hyp("b", "log")], problems: [], tokens: 0 },
    { e: "executed", results: [ok("n1", folds(0.8, 0.03)), ok("n2", folds(0.8))] },
  ];
  let s = run(fakeStart({ search: "tree", gateAt: "end" }), events).state;
  equal(s.pending?.a, "ideate");
  const parent = (s.pending as { parent: string }).parent;
  equal(parent, "n1", "the node that gained is expanded first");
  s = run(s, [
    { e: "proposed", parent, hypotheses: [hyp("c"), hyp("d", "product")], problems: [], tokens: 0 },
    { e: "executed", results: [ok("n3", folds(0.8, 0.03)), ok("n4", folds(0.8, 0.03))] },
  ]).state;
  const pool = ["n0", "n1", "n2", "n3", "n4"].map((id) => s.nodes[id]!);
  const ei = improvements(s, pool);
  // n1's two children changed nothing: its next child is expected to gain less than a fresh node's.
  equal(ei.get("n1")! < ei.get("n3")!, true, JSON.stringify([...ei]));
  equal(chooseParent(s), "n3");
  // The ablation keeps UCB over the root's fold noise.
  equal(chooseParent({ ...s, config: { ...s.config, insights: false } }) !== null, true);
});
