import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { makeSplits, restrictSplits, splitsFromJson, splitsToJson } from "./split.ts";
import type { Target } from "./target.ts";

function classTarget(counts: number[]): Target {
  const y = Float64Array.from(counts.flatMap((n, c) => Array(n).fill(c)));
  return {
    name: "y",
    task: "multiclass",
    classes: counts.map(String),
    y,
    usable: Int32Array.from(y, (_, i) => i),
  };
}

const count = (rows: Int32Array, t: Target, c: number) => Array.from(rows).filter((r) => t.y[r] === c).length;

Deno.test("makeSplits() parts are disjoint, cover every usable row, and folds partition dev", () => {
  const t = classTarget([300, 120, 80]);
  const s = makeSplits(t, { seed: 3 });
  const all = [...s.dev, ...s.heldout, ...s.test].sort((a, b) => a - b);
  deepEqual(all, Array.from(t.usable));
  equal(s.test.length, 100);
  equal(s.heldout.length, 100);
  const valid = s.folds.flatMap((f) => Array.from(f.valid)).sort((a, b) => a - b);
  deepEqual(valid, Array.from(s.dev));
  for (const f of s.folds) {
    equal(f.train.length + f.valid.length, s.dev.length);
    ok(!Array.from(f.valid).some((r) => f.train.includes(r)));
  }
});

Deno.test("makeSplits() stratifies: each part and fold keeps the class mix within one row", () => {
  const t = classTarget([300, 120, 80]);
  const s = makeSplits(t, { seed: 9, folds: 5 });
  for (let c = 0; c < 3; c++) {
    const share = [300, 120, 80][c]! / 500;
    ok(Math.abs(count(s.test, t, c) - share * s.test.length) <= 1, `test class ${c}`);
    ok(Math.abs(count(s.heldout, t, c) - share * s.heldout.length) <= 1, `heldout class ${c}`);
    const inDev = count(s.dev, t, c);
    for (const f of s.folds) ok(Math.abs(count(f.valid, t, c) - inDev / 5) <= 1, `fold class ${c}`);
  }
});

Deno.test("makeSplits() is deterministic in its seed and changes with it", () => {
  const t = classTarget([50, 50]);
  deepEqual(makeSplits(t, { seed: 1 }), makeSplits(t, { seed: 1 }));
  ok(
    JSON.stringify(Array.from(makeSplits(t, { seed: 1 }).test)) !==
      JSON.stringify(Array.from(makeSplits(t, { seed: 2 }).test)),
  );
});

Deno.test("makeSplits() spreads a regression target over folds and honours fractions", () => {
  const y = Float64Array.from({ length: 1000 }, (_, i) => i);
  const t: Target = {
    name: "y",
    task: "regression",
    classes: [],
    y,
    usable: Int32Array.from(y, (_, i) => i),
  };
  const s = makeSplits(t, { seed: 4, heldoutFraction: 0.1, testFraction: 0.3, folds: 4 });
  deepEqual([s.test.length, s.heldout.length, s.dev.length], [300, 100, 600]);
  for (const f of s.folds) {
    const mean = Array.from(f.valid).reduce((a, r) => a + y[r]!, 0) / f.valid.length;
    ok(Math.abs(mean - 499.5) < 15, `fold mean ${mean}`);
  }
  throws(() => makeSplits(t, { seed: 0, heldoutFraction: 0.5, testFraction: 0.5 }), /sum < 1/);
  throws(() => makeSplits(t, { seed: 0, folds: 1 }), /integer ≥ 2/);
});

Deno.test("restrictSplits() re-indexes the folds into a dev-only table and empties the other parts", () => {
  const t = classTarget([40, 20]);
  const s = makeSplits(t, { seed: 5 });
  const r = restrictSplits(s, s.dev);
  deepEqual([r.heldout.length, r.test.length], [0, 0]);
  deepEqual(Array.from(r.dev), Array.from(s.dev, (_, i) => i));
  r.folds.forEach((f, k) => deepEqual(Array.from(f.valid, (i) => s.dev[i]), Array.from(s.folds[k]!.valid)));
  throws(() => restrictSplits(s, s.dev.slice(1)), /is not among the rows kept/);
});

Deno.test("splitsToJson() and splitsFromJson() round-trip, and reading checks every index", () => {
  const t = classTarget([30, 30]);
  const s = makeSplits(t, { seed: 6 });
  deepEqual(splitsFromJson(JSON.parse(JSON.stringify(splitsToJson(s))), 60), s);
  const j = splitsToJson(s);
  j.folds[0]!.valid.push(60);
  throws(() => splitsFromJson(j, 60), /fold 0 valid holds 60/);
  throws(() => splitsFromJson({ seed: 1 }, 60), /folds is not a list/);
});

Deno.test("makeSplits() keeps a dev row of every class, however rare; held-out gives way first", () => {
  // Cumulative rounding hands a lone row of a class to test or held-out whenever the running share ticks
  // over there: e.g. [2, 1, 1, 1, 1, 1, 1, 1, 1, 200] puts several singletons outside dev without the rule.
  const shapes = [[2, 1, 1, 1, 1, 1, 1, 1, 1, 200], [1, 2, 1, 2, 1, 2, 90], [4, 1, 3, 1, 2, 60, 1]];
  for (const counts of shapes) {
    const t = classTarget(counts);
    for (let seed = 0; seed < 5; seed++) {
      const s = makeSplits(t, { seed });
      counts.forEach((_, c) =>
        ok(count(s.dev, t, c) >= 1, `class ${c} of ${counts} has a dev row (seed ${seed})`)
      );
      deepEqual([...s.dev, ...s.heldout, ...s.test].sort((a, b) => a - b), Array.from(t.usable));
    }
  }
  // Five two-row classes: the running shares give classes 1 and 3 a test row and a held-out row each (and
  // 0, 2, 4 none); each keeps its test row and gives up the held-out one.
  const two = classTarget([2, 2, 2, 2, 2]);
  const s = makeSplits(two, { seed: 1 });
  for (let c = 0; c < 5; c++) {
    const parts = [count(s.dev, two, c), count(s.heldout, two, c), count(s.test, two, c)];
    deepEqual(parts, c === 1 || c === 3 ? [1, 0, 1] : [2, 0, 0], `class ${c}`);
  }
});
