import { equal, notEqual, ok, throws } from "node:assert/strict";
import type { Matrix } from "./encode.ts";
import { fitGbdt, gbdtParams, predictGbdt } from "./gbdt.ts";
import { parseGbdtModel } from "./gbdt_json.ts";
import { score } from "./metrics.ts";
import { mulberry32 } from "./prng.ts";

/** n rows of p uniform features in [−1, 1] and a label from `label(x)`. */
function data(n: number, p: number, seed: number, label: (x: number[]) => number) {
  const rng = mulberry32(seed);
  const columns = Array.from({ length: p }, () => new Float64Array(n));
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const x = columns.map((c) => (c[i] = rng() * 2 - 1));
    y[i] = label(x);
  }
  const X: Matrix = { names: columns.map((_, j) => `x${j}`), columns, nRows: n };
  return { X, y };
}

Deno.test("fitGbdt() regression learns a non-linear signal (squared error)", () => {
  const f = (x: number[]) => Math.sin(3 * x[0]!) + x[1]! * x[1]!;
  const tr = data(800, 4, 1, f), te = data(400, 4, 2, f);
  const m = fitGbdt(tr.X, tr.y, "regression", [], { stages: 150 });
  ok(score("r2", te.y, predictGbdt(m, te.X)) > 0.9);
});

Deno.test("fitGbdt() binary log-loss learns XOR, which no single split separates", () => {
  const f = (x: number[]) => (x[0]! > 0) !== (x[1]! > 0) ? 1 : 0;
  const tr = data(800, 4, 3, f), te = data(400, 4, 4, f);
  const m = fitGbdt(tr.X, tr.y, "binary", ["0", "1"], {});
  const p = predictGbdt(m, te.X);
  ok(score("accuracy", te.y, p) > 0.93, `accuracy ${score("accuracy", te.y, p)}`);
  ok(score("auc", te.y, p) > 0.97);
  ok(p.values.every((v) => v > 0 && v < 1));
});

Deno.test("fitGbdt() multiclass softmax grows K trees per stage and learns angular sectors", () => {
  const f = (x: number[]) => Math.floor(((Math.atan2(x[1]!, x[0]!) + Math.PI) / (2 * Math.PI)) * 3) % 3;
  const tr = data(900, 3, 5, f), te = data(450, 3, 6, f);
  const m = fitGbdt(tr.X, tr.y, "multiclass", ["a", "b", "c"], { stages: 60 });
  equal(m.trees.length, 180);
  const p = predictGbdt(m, te.X);
  ok(score("accuracy", te.y, p) > 0.88, `accuracy ${score("accuracy", te.y, p)}`);
  for (let i = 0; i < te.X.nRows; i++) {
    const s = p.values[i * 3]! + p.values[i * 3 + 1]! + p.values[i * 3 + 2]!;
    ok(Math.abs(s - 1) < 1e-9);
  }
});

Deno.test("fitGbdt() routes missing values by a learned default direction", () => {
  // Missing x0 means class 1; otherwise the class is x0 > 0.5.
  const make = (seed: number) => {
    const d = data(600, 2, seed, (x) => (x[0]! > 0.5 ? 1 : 0));
    const rng = mulberry32(seed + 100);
    for (let i = 0; i < 600; i++) {
      if (rng() < 0.3) {
        d.X.columns[0]![i] = NaN;
        d.y[i] = 1;
      }
    }
    return d;
  };
  const tr = make(7), te = make(8);
  const m = fitGbdt(tr.X, tr.y, "binary", ["0", "1"], { stages: 30 });
  ok(score("accuracy", te.y, predictGbdt(m, te.X)) > 0.97);
  ok(
    m.trees.some((t) => t.feature.some((f, j) => f === 0 && t.missingLeft[j] === 0 && t.threshold[j]! < 0.6)),
  );
  const allMissing: Matrix = { ...te.X, columns: [new Float64Array(600).fill(NaN), te.X.columns[1]!] };
  ok(predictGbdt(m, allMissing).values.every((v) => v > 0.5), "a missing x0 predicts class 1");
});

Deno.test("fitGbdt() is deterministic: same seed → same JSON bytes; another subsample seed → another model", () => {
  const tr = data(300, 3, 9, (x) => (x[0]! + x[1]! > 0 ? 1 : 0));
  const fit = (seed: number) =>
    JSON.stringify(fitGbdt(tr.X, tr.y, "binary", ["0", "1"], { subsample: 0.7, seed, stages: 20 }));
  equal(fit(1), fit(1));
  notEqual(fit(1), fit(2));
});

Deno.test("fitGbdt() honours minSamplesLeaf and maxDepth", () => {
  const tr = data(100, 2, 10, (x) => x[0]!);
  const m = fitGbdt(tr.X, tr.y, "regression", [], { minSamplesLeaf: 40, maxDepth: 5, stages: 5 });
  for (const t of m.trees) {
    ok(t.feature.filter((f) => f < 0).length <= 2, "at most two leaves of 40 among 100 rows");
  }
  const d = fitGbdt(tr.X, tr.y, "regression", [], { maxDepth: 2, stages: 3 });
  for (const t of d.trees) ok(t.feature.length <= 7);
});

Deno.test("parseGbdtModel() round-trips model JSON and refuses broken models", () => {
  const tr = data(200, 2, 11, (x) => (x[0]! > 0 ? 1 : 0));
  const m = fitGbdt(tr.X, tr.y, "binary", ["n", "y"], { stages: 10 });
  const back = parseGbdtModel(JSON.parse(JSON.stringify(m)));
  equal(JSON.stringify(predictGbdt(back, tr.X).values), JSON.stringify(predictGbdt(m, tr.X).values));
  const broken = JSON.parse(JSON.stringify(m));
  broken.trees[0].left[0] = 0;
  throws(() => parseGbdtModel(broken), /node 0 has child 0/);
  const wide = JSON.parse(JSON.stringify(m));
  wide.trees[0].feature[0] = 7;
  throws(() => parseGbdtModel(wide), /feature 7 of 2/);
  throws(() => parseGbdtModel({ format: "other" }), /Cannot read the GBDT model/);
});

Deno.test("predictGbdt() refuses a matrix with other features; gbdtParams() refuses bad settings", () => {
  const tr = data(50, 2, 12, (x) => x[0]!);
  const m = fitGbdt(tr.X, tr.y, "regression", [], { stages: 2 });
  throws(() => predictGbdt(m, { ...tr.X, names: ["x1", "x0"] }), /Cannot predict/);
  throws(() => gbdtParams({ maxDepth: 0 }), /maxDepth 0/);
  throws(() => gbdtParams({ subsample: 1.5 }), /subsample/);
  throws(() => gbdtParams({ maxBins: 256 }), /maxBins/);
});
