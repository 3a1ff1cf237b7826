import { deepEqual as assertEquals, ok as assert } from "node:assert/strict";
import { resolveBuiltin } from "../../src/cli/catalog.ts";
import { layoutPlan, pathOf } from "./layout.ts";

Deno.test("layoutPlan() places every node, spawn-only ones too, in layers that follow artifact edges", () => {
  const { plan } = resolveBuiltin("plateau");
  const l = layoutPlan(plan);
  assertEquals(Object.keys(l.nodes).sort(), plan.nodes.map((n) => n.id).sort());
  for (const e of plan.edges.filter((e) => e.kind === "artifact")) {
    assert(l.nodes[e.from]!.x < l.nodes[e.to]!.x, `${e.from} left of ${e.to}`);
  }
  assert(l.width > 0 && l.height > 0);
});

Deno.test("layoutPlan() routes a back-edge from its source to its target", () => {
  const { plan } = resolveBuiltin("plateau");
  const l = layoutPlan(plan);
  const back = l.edges.find((e) => e.kind === "back_edge")!;
  const from = l.nodes[back.from]!;
  const to = l.nodes[back.to]!;
  const first = back.points[0]!;
  const last = back.points.at(-1)!;
  assert(Math.abs(first.x - from.x) < Math.abs(first.x - to.x), "starts at the source");
  assert(Math.abs(last.x - to.x) < Math.abs(last.x - from.x), "ends at the target");
});

Deno.test("layoutPlan() is deterministic", () => {
  const { plan } = resolveBuiltin("green");
  assertEquals(layoutPlan(plan), layoutPlan(plan));
});

Deno.test("pathOf() draws straight and curved routes", () => {
  assertEquals(pathOf([{ x: 0, y: 0 }, { x: 10, y: 5 }]), "M0,0 L10,5");
  assertEquals(pathOf([{ x: 0, y: 0 }, { x: 10, y: 0 }, { x: 20, y: 10 }]), "M0,0 Q10,0 15,5 L20,10");
  assertEquals(pathOf([]), "");
});
