import { equal } from "node:assert/strict";
import { fakeStart, folds, hyp, ok, run } from "../../../tests/tree_fake.ts";
import { chooseParent, ucb } from "./select.ts";
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
