import { deepEqual, notDeepEqual, ok } from "node:assert/strict";
import { mulberry32, shuffleInPlace, subSeed } from "./prng.ts";

const draw = (seed: number, n: number) => Array.from({ length: n }, mulberry32(seed));

Deno.test("mulberry32() replays the same stream for a seed and another for another seed", () => {
  deepEqual(draw(42, 50), draw(42, 50));
  notDeepEqual(draw(42, 50), draw(43, 50));
  deepEqual(draw(2 ** 32 + 5, 5), draw(5, 5), "only the low 32 bits count");
});

Deno.test("mulberry32() draws in [0, 1) with a uniform mean and spread", () => {
  const xs = draw(7, 20000);
  ok(xs.every((x) => x >= 0 && x < 1));
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  ok(Math.abs(mean - 0.5) < 0.01, `mean ${mean}`);
  const deciles = new Array(10).fill(0);
  for (const x of xs) deciles[Math.floor(x * 10)]++;
  ok(deciles.every((c) => Math.abs(c - 2000) < 150), JSON.stringify(deciles));
});

Deno.test("subSeed() gives each purpose its own stream; shuffleInPlace() permutes", () => {
  ok(subSeed(1, "splits") !== subSeed(1, "gbdt-subsample"));
  ok(subSeed(1, "splits") !== subSeed(2, "splits"));
  const a = shuffleInPlace(Int32Array.from({ length: 100 }, (_, i) => i), mulberry32(3));
  deepEqual(Array.from(a).sort((x, y) => x - y), Array.from({ length: 100 }, (_, i) => i));
  notDeepEqual(Array.from(a), Array.from({ length: 100 }, (_, i) => i));
});
