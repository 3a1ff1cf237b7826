import { deepEqual, equal, notEqual, ok as truthy } from "node:assert/strict";
import { fakeStart, folds, ok, run } from "../../tests/tree_fake.ts";
import { libraryIdeas } from "./library.ts";
import type { Hypothesis, TreeEvent, TreeState } from "./types.ts";

const baseline: TreeEvent[] = [
  { e: "executed", results: [ok("n0", folds(0.8))] },
  { e: "gated", node: "n0", score: 0.8, problem: null, escapes: [] },
];

Deno.test("libraryIdeas() is deterministic in its seed and differs across seeds only in ties", () => {
  const s = run(fakeStart(), baseline).state;
  const a = libraryIdeas(s, "n0", 4, 11).map((h) => h.key);
  deepEqual(libraryIdeas(s, "n0", 4, 11).map((h) => h.key), a);
  equal(a.length, 4);
  equal(new Set(a).size, 4);
});

Deno.test("libraryIdeas() puts distinct families first and writes a module for every non-capacity idea", () => {
  const s = run(fakeStart(), baseline).state;
  const ideas = libraryIdeas(s, "n0", 5, 1);
  equal(new Set(ideas.map((h) => h.family)).size, 5);
  for (const h of ideas) {
    if (h.family === "capacity") {
      equal(h.step, null);
      truthy(Object.keys(h.model).length > 0);
    } else {
      truthy(h.step?.source.includes(`from "../../../src/tabular/mod.ts"`), h.key);
      truthy(h.step?.path.startsWith("steps/001_"), h.key);
    }
  }
});

Deno.test("libraryIdeas() never proposes what is already on the path or already tried under the parent", () => {
  let s = run(fakeStart(), baseline).state;
  const first = libraryIdeas(s, "n0", 2, 1);
  s = run(fakeStart(), [...baseline, {
    e: "proposed",
    parent: "n0",
    hypotheses: first,
    problems: [],
    tokens: 0,
  }]).state;
  const again = libraryIdeas(s, "n0", 50, 1).map((h) => h.key);
  for (const h of first) equal(again.includes(h.key), false, h.key);
  const under = libraryIdeas(s, "n1", 50, 1).map((h) => h.key);
  equal(under.includes(first[0]!.key), false);
});

Deno.test("libraryIdeas() in random mode draws from the same space, by the seed", () => {
  const s = run(fakeStart({ search: "random" }), baseline).state;
  const a = libraryIdeas(s, "n0", 6, 1).map((h) => h.key);
  deepEqual(libraryIdeas(s, "n0", 6, 1).map((h) => h.key), a);
  notEqual(libraryIdeas(s, "n0", 6, 2).join(), a.join());
  const space = new Set(libraryIdeas(run(fakeStart(), baseline).state, "n0", 500, 1).map((h) => h.key));
  for (const k of a) truthy(space.has(k), k);
});

/** Two hypotheses of `family` under the root, both evaluated with `delta` against the root. */
function triedTwice(family: Hypothesis["family"], delta: number, insights: boolean): TreeState {
  const start = fakeStart({ insights, cycles: 9 });
  const s = run(start, baseline).state;
  const space = libraryIdeas({ ...s, config: { ...s.config, insights: false } }, "n0", 500, 1);
  const two = space.filter((h) => h.family === family).slice(0, 2);
  equal(two.length, 2, `two ${family} ideas`);
  return run(start, [
    ...baseline,
    { e: "proposed", parent: "n0", hypotheses: two, problems: [], tokens: 0 },
    { e: "executed", results: [ok("n1", folds(0.8, delta)), ok("n2", folds(0.8, delta))] },
  ]).state;
}

Deno.test("insights change ideation: a family that hurt twice under a branch is not proposed there again", () => {
  const withInsights = triedTwice("product", -0.03, true);
  equal(withInsights.nodes.n1!.insight?.outcome, "hurt");
  const learned = libraryIdeas(withInsights, "n0", 500, 1);
  equal(learned.some((h) => h.family === "product"), false);
  const blind = triedTwice("product", -0.03, false);
  truthy(libraryIdeas(blind, "n0", 500, 1).some((h) => h.family === "product"));
});

Deno.test("insights change ideation: a family that helped is extended to similar columns first", () => {
  const s = triedTwice("missing_indicator", 0.03, true);
  equal(s.nodes.n1!.insight?.outcome, "helped");
  const next = libraryIdeas(s, "n1", 3, 1);
  equal(next[0]!.family, "missing_indicator");
  const blind = triedTwice("missing_indicator", 0.03, false);
  notEqual(libraryIdeas(blind, "n1", 3, 1)[0]!.family, "missing_indicator");
});
