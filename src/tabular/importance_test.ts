import { deepEqual, ok } from "node:assert/strict";
import { permutationImportance } from "./importance.ts";
import { fitPipeline, type PipelineSpec, transformedRows } from "./pipeline.ts";
import { mulberry32 } from "./prng.ts";
import { readTable } from "./read.ts";
import { makeTarget } from "./target.ts";
import type { Prediction } from "./metrics.ts";
import type { ModelSpec } from "./model.ts";

/** 400 rows: y depends strongly on `signal`, weakly on `group`, not at all on `noise`. */
function table() {
  const rng = mulberry32(7);
  const lines = ["signal,noise,group,y"];
  for (let i = 0; i < 400; i++) {
    const s = rng() * 4 - 2, z = rng() * 4 - 2, g = "abc"[Math.floor(rng() * 3)]!;
    const y = 3 * s + (g === "a" ? 0.8 : 0) + 0.3 * (rng() - 0.5);
    lines.push(`${s.toFixed(4)},${z.toFixed(4)},${g},${y.toFixed(4)}`);
  }
  const t = readTable(lines.join("\n"));
  return { t, target: makeTarget(t, "y") };
}

const squared = (y: Float64Array) => (p: Prediction) =>
  Float64Array.from(y, (v, i) => (v - p.values[i]!) ** 2);

const MODELS: [string, ModelSpec][] = [["gbdt", {}], ["linear", { kind: "linear", alpha: 1 }]];

for (const [name, model] of MODELS) {
  Deno.test(`permutationImportance() ranks the signal first and the noise near zero (${name})`, () => {
    const { t, target } = table();
    const train = Int32Array.from({ length: 300 }, (_, i) => i);
    const valid = Int32Array.from({ length: 100 }, (_, i) => 300 + i);
    const spec: PipelineSpec = { target, model };
    const fitted = fitPipeline(t, train, spec);
    const rows = transformedRows(fitted, t, valid, spec);
    const y = Float64Array.from(valid, (r) => target.y[r]!);
    const imp = permutationImportance(fitted, rows, squared(y), 3);
    const by = Object.fromEntries(imp.map((c) => [c.column, c.gain]));
    ok(!("y" in by), "the target is never a column of the rows measured");
    ok(by.signal! > 1, `shuffling the signal costs much: ${by.signal}`);
    ok(by.group! > 0.02, `the group carries a little: ${by.group}`);
    ok(Math.abs(by.noise!) < 0.2 * by.group! + 0.02, `the noise carries nothing: ${by.noise}`);
    ok(by.signal! > by.group! && by.group! > by.noise!, JSON.stringify(by));
    deepEqual(permutationImportance(fitted, rows, squared(y), 3), imp, "the same seed, the same result");
  });
}
