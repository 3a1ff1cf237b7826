import { deepEqual as assertEquals } from "node:assert/strict";
import assert from "node:assert/strict";
import { ACCEPT_MAX_LAPS } from "../thresholds.ts";
import { normalize, stronglyConnected, topoOrder } from "./normalize.ts";
import type { PlanEdge } from "./types.ts";
import { mulberry32 } from "../tabular/prng.ts";

const art = (from: string, to: string): PlanEdge => ({ from, to, kind: "artifact" });

Deno.test("normalize() orders a chain topologically", () => {
  const r = normalize(["c", "b", "a"], [art("a", "b"), art("b", "c")]);
  assertEquals(r.order, ["a", "b", "c"]);
  assertEquals(r.errors, []);
});

Deno.test("normalize() breaks ties lexicographically", () => {
  const r = normalize(["z", "m", "a", "root"], [art("root", "z"), art("root", "m"), art("root", "a")]);
  assertEquals(r.order, ["root", "a", "m", "z"]);
});

Deno.test("normalize() demotes an undeclared 2-cycle to a metered back_edge", () => {
  const r = normalize(["N4", "N5"], [art("N4", "N5"), art("N5", "N4")]);
  assertEquals(r.errors, []);
  assertEquals(r.edges[1], { from: "N5", to: "N4", kind: "back_edge", laps: ACCEPT_MAX_LAPS, demoted: true });
  assertEquals(r.edges[0], art("N4", "N5"));
  assertEquals(r.warnings.length, 1);
  assertEquals(r.warnings[0]!.edge, 1);
  assertEquals(r.order, ["N4", "N5"]);
});

Deno.test("normalize() rejects a 3-cycle naming its members in cycle order", () => {
  const r = normalize(["a", "b", "c", "d"], [art("d", "a"), art("a", "b"), art("b", "c"), art("c", "a")]);
  assertEquals(r.errors.length, 1);
  assertEquals(r.errors[0]!.cycle, ["a", "b", "c", "a"]);
  assert.match(r.errors[0]!.message, /a → b → c → a/);
  assertEquals(r.order, []);
});

Deno.test("normalize() rejects a self-loop", () => {
  const r = normalize(["a"], [art("a", "a")]);
  assertEquals(r.errors.length, 1);
  assert.match(r.errors[0]!.message, /cannot depend on itself/);
});

Deno.test("normalize() ignores declared back-edges and stream edges when looking for cycles", () => {
  const r = normalize(["a", "b"], [art("a", "b"), { from: "b", to: "a", kind: "back_edge", laps: 2 }, {
    from: "b",
    to: "a",
    kind: "stream",
  }]);
  assertEquals(r.errors, []);
  assertEquals(r.warnings, []);
  assertEquals(r.order, ["a", "b"]);
});

Deno.test("stronglyConnected() finds components deterministically", () => {
  const adj = new Map([["a", ["b"]], ["b", ["a", "c"]], ["c", []]]);
  assertEquals(stronglyConnected(["c", "b", "a"], adj), [["a", "b"], ["c"]]);
});

// ---- property tests -------------------------------------------------------------------------------

function randomGraph(seed: number): { nodes: string[]; edges: PlanEdge[] } {
  const rand = mulberry32(seed);
  const n = 1 + Math.floor(rand() * 14);
  const nodes = Array.from({ length: n }, (_, i) => `n${String.fromCharCode(97 + ((i * 7) % 26))}${i}`);
  const edges: PlanEdge[] = [];
  const m = Math.floor(rand() * n * 2);
  for (let i = 0; i < m; i++) {
    const from = nodes[Math.floor(rand() * n)]!;
    const to = nodes[Math.floor(rand() * n)]!;
    const k = rand();
    edges.push(
      k < 0.8
        ? art(from, to)
        : k < 0.9
        ? { from, to, kind: "stream" }
        : { from, to, kind: "back_edge", laps: 2 },
    );
  }
  return { nodes, edges };
}

function hasArtifactCycle(nodes: string[], edges: PlanEdge[]): boolean {
  return topoOrder(nodes, edges).length !== nodes.length;
}

Deno.test("normalize() properties hold over 600 random graphs", () => {
  let valid = 0;
  let demoted = 0;
  let rejected = 0;
  for (let seed = 1; seed <= 600; seed++) {
    const { nodes, edges } = randomGraph(seed);
    const r = normalize(nodes, edges);
    assertEquals(normalize(nodes, edges), r, `seed ${seed}: same input, same output`);
    const shuffled = [...nodes].reverse();
    assertEquals(normalize(shuffled, edges).order, r.order, `seed ${seed}: node order does not matter`);
    if (r.errors.length) {
      rejected++;
      for (const e of r.errors) {
        const cyc = e.cycle!;
        assertEquals(cyc[0], cyc.at(-1), `seed ${seed}: a reported cycle closes`);
        for (let i = 0; i + 1 < cyc.length; i++) {
          assert.ok(
            edges.some((x) => x.kind === "artifact" && x.from === cyc[i] && x.to === cyc[i + 1]),
            `seed ${seed}: cycle step ${cyc[i]}→${cyc[i + 1]} is a real artifact edge`,
          );
        }
      }
      continue;
    }
    valid++;
    if (r.warnings.length) demoted++;
    assert.ok(!hasArtifactCycle(nodes, r.edges), `seed ${seed}: no artifact cycle remains`);
    assertEquals(new Set(r.order).size, nodes.length, `seed ${seed}: every node ordered once`);
    const pos = new Map(r.order.map((id, i) => [id, i]));
    for (const e of r.edges) {
      if (e.kind === "artifact") {
        assert.ok(pos.get(e.from)! < pos.get(e.to)!, `seed ${seed}: ${e.from}→${e.to} respected`);
      }
    }
  }
  assertEquals(valid + rejected, 600);
  assert.ok(
    valid > 100 && rejected > 50 && demoted >= 10,
    `mix of outcomes: ${valid} valid, ${demoted} demoted, ${rejected} rejected`,
  );
});

// ---- plan-sized graphs: nothing recursive, nothing quadratic -----------------------------------------

Deno.test("normalize() orders a 100,000-node chain without overflowing the stack", () => {
  const n = 100_000;
  const ids = Array.from({ length: n }, (_, i) => `n${String(i).padStart(6, "0")}`);
  const edges = ids.slice(1).map((id, i) => art(ids[i]!, id));
  const r = normalize([...ids].reverse(), edges);
  assertEquals(r.errors, []);
  assertEquals(r.order, ids);
});

Deno.test("normalize() names every member of a 100,000-node cycle in cycle order", () => {
  const n = 100_000;
  const ids = Array.from({ length: n }, (_, i) => `n${String(i).padStart(6, "0")}`);
  const edges = [...ids.slice(1).map((id, i) => art(ids[i]!, id)), art(ids.at(-1)!, ids[0]!)];
  const r = normalize(ids, edges);
  assertEquals(r.errors.length, 1);
  assertEquals(r.errors[0]!.cycle, [...ids, ids[0]]);
  assertEquals(r.errors[0]!.edge, n - 1);
});

Deno.test("normalize() orders a 100,000-leaf star and 50,000 demoted 2-cycles", () => {
  const n = 100_000;
  const ids = Array.from({ length: n }, (_, i) => `n${String(i).padStart(6, "0")}`);
  const star = normalize([...ids].reverse(), ids.slice(1).map((id) => art(ids[0]!, id)));
  assertEquals(star.order, ids);
  const pairs = ids.flatMap((id, i) => (i % 2 ? [art(ids[i - 1]!, id), art(id, ids[i - 1]!)] : []));
  const r = normalize(ids, pairs);
  assertEquals(r.errors, []);
  assertEquals(r.warnings.length, n / 2);
  assertEquals(r.edges.filter((e) => e.kind === "back_edge" && e.demoted).length, n / 2);
  assertEquals(r.order, ids);
});
