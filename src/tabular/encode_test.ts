import { deepEqual, equal, ok } from "node:assert/strict";
import { applyEncoding, applyEncodingToTrain, fitEncoding } from "./encode.ts";
import { readTable } from "./read.ts";
import { makeSplits } from "./split.ts";
import { makeTarget } from "./target.ts";

const table = readTable(
  "color,city,name,y\n" +
    ["red,A,p q,1", "red,B,r s,0", "blue,C,t u,1", ",D,v w,0", "green,A,x y,1", "red,E,z a,0"].join("\n") +
    "\n",
  "t.csv",
  { types: { name: "text" } },
);
const target = makeTarget(table, "y");
const rows = (...r: number[]) => Int32Array.from(r);
const col = (m: { names: string[]; columns: Float64Array[] }, name: string) =>
  Array.from(m.columns[m.names.indexOf(name)]!);

Deno.test("fitEncoding() one-hots low-cardinality columns; unknown → all 0, missing → all NaN", () => {
  const enc = fitEncoding(table, rows(0, 1, 2, 4), target, { maxOneHot: 3 });
  deepEqual(enc.names.filter((n) => n.startsWith("color")), ["color=blue", "color=green", "color=red"]);
  deepEqual(enc.dropped, [{ column: "name", reason: "free text" }]);
  ok(!enc.names.includes("y"), "the target is never a feature");
  const m = applyEncoding(enc, table, rows(0, 3, 5));
  deepEqual(col(m, "color=red"), [1, NaN, 1]);
  deepEqual(col(m, "color=blue"), [0, NaN, 0]);
});

Deno.test("fitEncoding() ordinal-encodes high cardinality by training frequency; unknown ranks last", () => {
  const enc = fitEncoding(table, rows(0, 1, 2, 4), target, { maxOneHot: 2 });
  const e = enc.encoders.find((e) => e.column === "city")!;
  ok(e.kind === "ordinal");
  deepEqual(e.levels, ["A", "B", "C"], "A twice, then B and C by name");
  deepEqual(col(applyEncoding(enc, table, rows(4, 1, 3)), "city"), [0, 1, 3]);
});

Deno.test("fitEncoding() frequency encoding: training share, unknown 0, missing NaN", () => {
  const enc = fitEncoding(table, rows(0, 1, 2, 3), target, { maxOneHot: 1, highCardinality: "frequency" });
  const m = applyEncoding(enc, table, rows(0, 3, 4));
  deepEqual(col(m, "color~freq"), [0.5, NaN, 0]);
});

Deno.test("fitEncoding() target means are out-of-fold on training rows and smoothed to the prior", () => {
  const enc = fitEncoding(table, rows(0, 1, 2, 3, 4, 5), target, {
    targetEncode: ["city"],
    smoothing: 1,
    innerFolds: 3,
  });
  const full = applyEncoding(enc, table, rows(0, 3));
  // Prior 0.5. City A holds rows 0 and 4 (both y = 1): (2 + 1·0.5) / (2 + 1); city D row 3 (y = 0): 0.5 / 2.
  deepEqual(col(full, "city~te"), [2.5 / 3, 0.25]);
  const train = rows(0, 1, 2, 3, 4, 5);
  const own = col(applyEncodingToTrain(enc, table, train, target), "city~te");
  // No training row sees its own label: flipping row i's label leaves row i's out-of-fold value unchanged.
  for (let i = 0; i < 6; i++) {
    const y = target.y.slice();
    y[i] = 1 - y[i]!;
    const flipped = col(applyEncodingToTrain(enc, table, train, { ...target, y }), "city~te");
    equal(flipped[i], own[i], `row ${i}`);
  }
  ok(
    own.some((v, i) => v !== col(applyEncoding(enc, table, train), "city~te")[i]),
    "differs from the in-fold means",
  );
});

Deno.test("fitEncoding() never sees validation-fold rows: a level only in the fold is unknown there", () => {
  const lines = ["cat,x,y"];
  for (let i = 0; i < 60; i++) lines.push(`${["a", "b", "c"][i % 3]},${i},${i % 2}`);
  const t = readTable(lines.join("\n") + "\n", "f.csv");
  const tgt = makeTarget(t, "y");
  const s = makeSplits(tgt, { seed: 2, folds: 3, heldoutFraction: 0, testFraction: 0 });
  const fold = s.folds[0]!;
  // Give one validation row a level no training row has.
  const only = fold.valid[0]!;
  const col0 = t.columns[0]!;
  ok(col0.kind === "categorical");
  col0.levels.push("zeta");
  col0.codes[only] = col0.levels.length - 1;
  const enc = fitEncoding(t, fold.train, tgt, { maxOneHot: 10 });
  ok(!enc.names.includes("cat=zeta"), "the encoder learned no level from validation rows");
  const m = applyEncoding(enc, t, Int32Array.of(only));
  deepEqual(enc.names.filter((n) => n.startsWith("cat=")).map((n) => col(m, n)[0]), [0, 0, 0]);
  const freq = fitEncoding(t, fold.train, tgt, { maxOneHot: 1, highCardinality: "frequency" });
  equal(col(applyEncoding(freq, t, Int32Array.of(only)), "cat~freq")[0], 0);
  const sum = fold.train.length;
  const shares = (freq.encoders[0] as { shares: number[] }).shares;
  ok(Math.abs(shares.reduce((a, b) => a + b, 0) - 1) < 1e-12, `shares over ${sum} training rows sum to 1`);
});
