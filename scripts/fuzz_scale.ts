/**
 * The scale half of `deno task fuzz`: how long plan-sized and manifest-sized inputs take — the normalizer
 * and the whole loader on a 100,000-node chain, and parseBounded against JSON.parse on a 1 MiB manifest
 * and on metrics lines — so a regression to recursion or quadratic work shows as a number.
 *
 * @module
 */
import { loadPlan } from "../src/graph/load.ts";
import { normalize } from "../src/graph/normalize.ts";
import type { PlanEdge } from "../src/graph/types.ts";
import { parseBounded } from "../src/runtime/bounded_json.ts";

const ms = (t0: number) => `${(performance.now() - t0).toFixed(0)} ms`;

/** Prints the scale figures; returns false when a large input was refused or mis-ordered. */
export function scaleReport(n = 100_000): boolean {
  let ok = true;
  const ids = Array.from({ length: n }, (_, i) => `n${String(i).padStart(6, "0")}`);
  const chain: PlanEdge[] = ids.slice(1).map((to, i) => ({ from: ids[i]!, to, kind: "artifact" }));
  let t0 = performance.now();
  const r = normalize(ids, chain);
  ok &&= r.order.length === n;
  console.log(`normalize(): ${n}-node chain ${ms(t0)}`);
  t0 = performance.now();
  const ring = normalize(ids, [...chain, { from: ids.at(-1)!, to: ids[0]!, kind: "artifact" }]);
  ok &&= ring.errors[0]?.cycle?.length === n + 1;
  console.log(`normalize(): ${n}-node cycle, every member named ${ms(t0)}`);
  const text = ["question: scale", "protocol: {version: v1, metric: r2, direction: maximize}", "nodes:"]
    .concat(ids.map((id) => `  - {id: ${id}, kind: fast, role: other}`), ["edges:"])
    .concat(chain.map((e) => `  - {from: ${e.from}, to: ${e.to}, kind: artifact}`)).join("\n") + "\n";
  t0 = performance.now();
  const plan = loadPlan(text, "scale.yaml");
  ok &&= plan.plan?.order.length === n;
  console.log(
    `loadPlan(): ${n}-node chain, ${(text.length / 1e6).toFixed(1)} MB of YAML ${ms(t0)} ` +
      `(${plan.errors.length} errors; most of it is the YAML parser)`,
  );
  const manifest = JSON.stringify({
    node: "N4",
    score: 0.91,
    rows: Array.from({ length: 12_000 }, (_, i) => ({ i, v: Math.sin(i), s: `row${i}` })),
  });
  const limits = { maxBytes: 1 << 20, maxDepth: 32 };
  for (let k = 0; k < 3; k++) parseBounded(manifest, limits);
  t0 = performance.now();
  for (let k = 0; k < 20; k++) JSON.parse(manifest);
  const plain = (performance.now() - t0) / 20;
  t0 = performance.now();
  for (let k = 0; k < 20; k++) ok &&= parseBounded(manifest, limits).ok;
  const bounded = (performance.now() - t0) / 20;
  console.log(
    `parseBounded(): ${(manifest.length / 1024).toFixed(0)} KiB manifest ${bounded.toFixed(1)} ms ` +
      `(JSON.parse ${plain.toFixed(1)} ms)`,
  );
  const line = JSON.stringify({ step: 12, dev_r2: 0.5, loss: 0.25 });
  t0 = performance.now();
  for (let k = 0; k < 100_000; k++) parseBounded(line, { maxBytes: 65536, maxDepth: 16 });
  console.log(`parseBounded(): metrics line ${((performance.now() - t0) / 100).toFixed(2)} µs`);
  return ok;
}
