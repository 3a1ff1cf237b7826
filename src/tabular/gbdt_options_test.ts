import { deepEqual, equal, notEqual, ok, throws } from "node:assert/strict";
import type { Matrix } from "./encode.ts";
import { fitGbdt, predictGbdt } from "./gbdt.ts";
import { holdOut } from "./gbdt_holdout.ts";
import { parseGbdtModel } from "./gbdt_json.ts";
import { gbdtParams } from "./gbdt_params.ts";
import { score } from "./metrics.ts";
import { mulberry32 } from "./prng.ts";

function data(n: number, p: number, seed: number, label: (x: number[], r: number) => number) {
  const rng = mulberry32(seed);
  const columns = Array.from({ length: p }, () => new Float64Array(n));
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) y[i] = label(columns.map((c) => (c[i] = rng() * 2 - 1)), rng());
  const X: Matrix = { names: columns.map((_, j) => `x${j}`), columns, nRows: n };
  return { X, y };
}

// A weak signal under 30% label noise: boosting overfits it long before 400 stages at rate 0.5.
const noisy = data(1200, 8, 11, (x, r) => ((x[0]! > 0) !== (r < 0.3) ? 1 : 0));

Deno.test("fitGbdt() earlyStoppingRounds stops once the held-aside loss stalls and keeps the best stage", () => {
  const params = {
    stages: 400,
    learningRate: 0.5,
    maxDepth: 4,
    validationFraction: 0.25,
    earlyStoppingRounds: 5,
  };
  const m = fitGbdt(noisy.X, noisy.y, "binary", ["0", "1"], params);
  const v = m.validation!;
  ok(v.stagesRun < 400, `ran ${v.stagesRun} stages`);
  equal(v.stagesRun - v.stagesUsed, 5);
  equal(m.trees.length, v.stagesUsed);
  equal(v.rows, 300);
  // The kept stages' loss is the best seen: the same model refit without stopping ends no lower.
  const all = fitGbdt(noisy.X, noisy.y, "binary", ["0", "1"], { ...params, earlyStoppingRounds: 0 });
  equal(all.trees.length, 400);
  ok(all.validation!.loss > v.loss, `${all.validation!.loss} vs ${v.loss}`);
  equal(JSON.stringify(fitGbdt(noisy.X, noisy.y, "binary", ["0", "1"], params)), JSON.stringify(m));
  deepEqual(parseGbdtModel(JSON.parse(JSON.stringify(m))), m);
});

Deno.test("fitGbdt() early stopping works for regression and multiclass (K trees per kept stage)", () => {
  const reg = data(600, 4, 12, (x, r) => x[0]! + 2 * (r - 0.5));
  const m = fitGbdt(reg.X, reg.y, "regression", [], {
    stages: 300,
    learningRate: 0.5,
    validationFraction: 0.2,
    earlyStoppingRounds: 3,
  });
  ok(m.validation!.stagesUsed < 300);
  equal(m.trees.length, m.validation!.stagesUsed);
  const mc = data(
    600,
    3,
    13,
    (x, r) => (r < 0.4 ? Math.floor(r * 7.5) : x[0]! > 0.3 ? 2 : x[0]! > -0.3 ? 1 : 0),
  );
  const k = fitGbdt(mc.X, mc.y, "multiclass", ["a", "b", "c"], {
    stages: 300,
    learningRate: 0.5,
    validationFraction: 0.2,
    earlyStoppingRounds: 4,
  });
  equal(k.trees.length, 3 * k.validation!.stagesUsed);
  ok(k.validation!.stagesUsed < 300);
});

Deno.test("holdOut() holds each class's share aside, seeded, and never a single-row class", () => {
  const y = Float64Array.from({ length: 103 }, (_, i) => (i < 80 ? 0 : i < 102 ? 1 : 2));
  const a = holdOut(y, "binary", 0.25, 4);
  const count = (rows: Int32Array, c: number) => rows.filter((r) => y[r] === c).length;
  deepEqual([count(a.valid, 0), count(a.valid, 1), count(a.valid, 2)], [20, 6, 0]);
  equal(a.train.length + a.valid.length, 103);
  deepEqual(holdOut(y, "binary", 0.25, 4), a);
  notEqual(
    JSON.stringify(Array.from(holdOut(y, "binary", 0.25, 5).valid)),
    JSON.stringify(Array.from(a.valid)),
  );
});

Deno.test("fitGbdt() colsample is seeded and limits each tree to its drawn features", () => {
  const d = data(500, 10, 14, (x) => x[0]! + x[3]! * x[5]!);
  const p = { stages: 20, maxDepth: 3, colsample: 0.3, seed: 2 };
  const a = fitGbdt(d.X, d.y, "regression", [], p);
  equal(JSON.stringify(fitGbdt(d.X, d.y, "regression", [], p)), JSON.stringify(a));
  notEqual(
    JSON.stringify(fitGbdt(d.X, d.y, "regression", [], { ...p, seed: 3 }).trees),
    JSON.stringify(a.trees),
  );
  const full = fitGbdt(d.X, d.y, "regression", [], { stages: 20, maxDepth: 3, seed: 2 });
  notEqual(JSON.stringify(full.trees), JSON.stringify(a.trees));
  for (const t of a.trees) ok(new Set(t.feature.filter((f) => f >= 0)).size <= 3);
  const used = new Set(a.trees.flatMap((t) => t.feature.filter((f) => f >= 0)));
  ok(used.size > 3, "different trees draw different features");
  ok(score("r2", d.y, predictGbdt(a, d.X)) > 0.5);
  equal(a.params.colsample, 0.3);
});

Deno.test("gbdtParams() leaves the optional parameters out at their defaults and refuses bad ones", () => {
  deepEqual(
    Object.keys(gbdtParams({ colsample: 1, validationFraction: 0, earlyStoppingRounds: 0 })).length,
    9,
  );
  throws(() => gbdtParams({ colsample: 0 }), /Cannot use GBDT colsample 0/);
  throws(() => gbdtParams({ colsample: 1.5 }), /Cannot use GBDT colsample 1\.5/);
  throws(() => gbdtParams({ validationFraction: 0.9 }), /Cannot use GBDT validationFraction 0\.9/);
  throws(
    () => gbdtParams({ earlyStoppingRounds: 5 }),
    /Cannot use GBDT earlyStoppingRounds 5: .*validationFraction/,
  );
  throws(() => gbdtParams({ earlyStoppingRounds: 1.5, validationFraction: 0.1 }), /earlyStoppingRounds 1\.5/);
  throws(() => gbdtParams({ colSample: 0.5 } as never), /Cannot use GBDT parameter "colSample"/);
  const tiny = data(1, 2, 1, () => 1);
  throws(
    () => fitGbdt(tiny.X, tiny.y, "regression", [], { validationFraction: 0.2 }),
    /Cannot use GBDT validationFraction 0\.2: it holds none/,
  );
});
