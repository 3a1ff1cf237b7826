import { deepEqual, equal, ok } from "node:assert/strict";
import type { TreeEvent } from "../../src/tree/types.ts";
import { fakeStart, folds, hyp, ok as honest } from "../../tests/tree_fake.ts";
import { admittedPath, chartPoints, layoutTree, ROW, TreeFold } from "./tree_model.ts";

function lines(): { tick: number; events: TreeEvent[] }[] {
  const events: TreeEvent[] = [
    { e: "init", state: fakeStart() },
    { e: "executed", results: [honest("n0", folds(0.8))] },
    { e: "gated", node: "n0", score: 0.8, problem: null, escapes: [] },
    { e: "proposed", parent: "n0", hypotheses: [hyp("a"), hyp("b", "log")], problems: [], tokens: 0 },
    { e: "executed", results: [honest("n1", folds(0.8, 0.02)), honest("n2", folds(0.8, -0.02))] },
    { e: "gated", node: "n1", score: 0.82, problem: null, escapes: [] },
  ];
  return events.map((e, tick) => ({ tick, events: [e] }));
}

Deno.test("TreeFold folds the step log into a state per line and ignores lines it has seen", () => {
  const fold = new TreeFold();
  for (const l of lines()) equal(fold.push(l), true);
  equal(fold.push(lines()[3]!), false);
  equal(fold.states.length, 6);
  equal(fold.states[0]!.order.length, 1);
  equal(fold.states.at(-1)!.incumbent, "n1");
  equal(fold.events.at(-1)![0]!.e, "gated");
});

Deno.test("layoutTree() puts children a row below their parent, the parent centred over them", () => {
  const fold = new TreeFold();
  for (const l of lines()) fold.push(l);
  const s = fold.states.at(-1)!;
  const l = layoutTree(s);
  const at = Object.fromEntries(l.nodes.map((p) => [p.id, p]));
  equal(at.n1!.y - at.n0!.y, ROW);
  equal(at.n0!.x, (at.n1!.x + at.n2!.x) / 2);
  ok(at.n1!.x < at.n2!.x, "children in creation order");
  deepEqual(layoutTree(s), l, "deterministic");
  deepEqual(l.edges.filter((e) => e.admitted).map((e) => e.to), ["n1"]);
});

Deno.test("admittedPath() and chartPoints() follow the incumbent and the cycles", () => {
  const fold = new TreeFold();
  for (const l of lines()) fold.push(l);
  const s = fold.states.at(-1)!;
  deepEqual([...admittedPath(s)].sort(), ["n0", "n1"]);
  const pts = chartPoints(s);
  deepEqual(pts.map((p) => p.cycle), [0, 1]);
  ok(Math.abs(pts[1]!.heldout - 0.02) < 1e-9);
  ok(Math.abs(pts[1]!.dev - 0.02) < 1e-9);
});
