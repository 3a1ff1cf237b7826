import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { crossValidate, evaluateOn } from "./cv.ts";
import { parseModel } from "./model.ts";
import { mulberry32 } from "./prng.ts";
import { readTable } from "./read.ts";
import { makeSplits } from "./split.ts";
import { makeTarget } from "./target.ts";

/** A price that is linear in size and rooms plus a category offset, with some sizes missing. */
function houses(n: number, seed: number) {
  const rng = mulberry32(seed);
  const lines = ["size,rooms,area,price"];
  for (let i = 0; i < n; i++) {
    const size = 50 + rng() * 150, rooms = 1 + Math.floor(rng() * 5), area = "ABC"[i % 3]!;
    const price = 2 * size + 15 * rooms + (area === "A" ? 40 : 0) + 5 * (rng() - 0.5);
    lines.push(`${rng() < 0.05 ? "" : size.toFixed(2)},${rooms},${area},${price.toFixed(3)}`);
  }
  const table = readTable(lines.join("\n") + "\n", "houses.csv");
  const target = makeTarget(table, "price");
  return { table, target, splits: makeSplits(target, { seed, folds: 3 }) };
}

Deno.test("crossValidate() and evaluateOn() run the linear model a spec names, and any GBDT shape", () => {
  const { table, target, splits } = houses(300, 3);
  const linear = crossValidate(table, splits, { target, model: { kind: "linear", alpha: 0.1 } }, "r2");
  const gbdt = crossValidate(table, splits, { target, model: { kind: "gbdt", stages: 50 } }, "r2");
  const old = crossValidate(table, splits, { target, model: { stages: 50 } }, "r2");
  deepEqual(old, gbdt);
  ok(linear.mean > 0.95 && linear.mean > gbdt.mean, `linear ${linear.mean} vs GBDT ${gbdt.mean}`);
  const e = evaluateOn(table, splits.dev, splits.heldout, { target, model: { kind: "linear" } }, "r2");
  equal(e.fitted.model.format, "arrow-linear/1");
  ok(e.score > 0.9);
  const back = parseModel(JSON.parse(JSON.stringify(e.fitted.model)));
  equal(JSON.stringify(back), JSON.stringify(e.fitted.model));
  const g = evaluateOn(table, splits.dev, splits.heldout, { target, model: { stages: 5 } }, "r2");
  equal(parseModel(JSON.parse(JSON.stringify(g.fitted.model))).format, "arrow-gbdt/1");
});

Deno.test("fitPipeline() refuses an unknown model kind or a parameter of the other model", () => {
  const { table, target, splits } = houses(60, 4);
  const run = (model: unknown) =>
    evaluateOn(table, splits.dev, splits.heldout, { target, model: model as never }, "r2");
  throws(() => run({ kind: "forest" }), /Cannot use model kind "forest"/);
  throws(() => run({ kind: "linear", stages: 3 }), /Cannot use linear parameter "stages"/);
  throws(() => run({ kind: "gbdt", alpha: 3 }), /Cannot use GBDT parameter "alpha"/);
});
