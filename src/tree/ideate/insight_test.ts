import { deepEqual, equal } from "node:assert/strict";
import { ACCEPT_EPS } from "../../thresholds.ts";
import {
  addToTally,
  classify,
  pairedDelta,
  pooledZ,
  SPREAD_FLOOR,
  summarizeTally,
  towardFamily,
} from "./insight.ts";

const d = (folds: number[]) => {
  const mean = folds.reduce((s, x) => s + x, 0) / folds.length;
  const std = Math.sqrt(folds.reduce((s, x) => s + (x - mean) ** 2, 0) / (folds.length - 1));
  return { mean, std, folds };
};

Deno.test("pairedDelta() compares fold by fold, positive when better under the direction", () => {
  const up = pairedDelta(d([0.8, 0.9]), d([0.7, 0.85]), 1);
  deepEqual(up.folds.map((x) => Number(x.toFixed(6))), [0.1, 0.05]);
  const loss = pairedDelta(d([0.3, 0.4]), d([0.5, 0.5]), -1);
  deepEqual(loss.folds.map((x) => Number(x.toFixed(6))), [0.2, 0.1]);
});

Deno.test("classify() needs ACCEPT_EPS and Student's t standard errors to call a change helped or hurt", () => {
  equal(classify(d([0.01, 0.012, 0.011, 0.009, 0.01])), "helped");
  equal(classify(d([-0.01, -0.012, -0.011, -0.009, -0.01])), "hurt");
  // Big enough on average, but the folds disagree: within noise.
  equal(classify(d([0.05, -0.04, 0.05, -0.04, 0.0])), "neutral");
  // Consistent, but smaller than ACCEPT_EPS.
  equal(classify(d([ACCEPT_EPS / 2, ACCEPT_EPS / 2, ACCEPT_EPS / 2])), "neutral");
});

Deno.test("summarizeTally() says what a parent's children taught, families in order", () => {
  let t = addToTally({}, "ratio", "helped");
  t = addToTally(t, "log", "neutral");
  t = addToTally(t, "log", "neutral");
  equal(summarizeTally(t), "Children so far: log neutral 2; ratio helped 1.");
  equal(summarizeTally({}), "");
});

Deno.test("pooledZ() measures how far a family's members differ; towardFamily() lends a z only what agrees", () => {
  // Alike (z 1.0, 1.2, 0.8: variance 0.04, below the unit noise): the floor, and a member keeps a fifth.
  const alike = pooledZ([1.0, 1.2, 0.8]);
  equal(alike.spread, SPREAD_FLOOR);
  equal(alike.shrunk.toFixed(6), (3 / 4).toFixed(6));
  equal(towardFamily(4, alike).toFixed(6), (0.2 * 4 + 0.8 * 0.75).toFixed(6));
  // Apart (z 6, −2: variance 32): τ² 31, so a member keeps 31/32 of its own z.
  const apart = pooledZ([6, -2]);
  equal(apart.spread, 31);
  equal(towardFamily(0, apart).toFixed(6), ((1 / 32) * (4 / 3)).toFixed(6));
  // One member or none says nothing of the spread: halfway toward the pooled z, or toward none.
  equal(pooledZ([2]).spread, 1);
  equal(towardFamily(3, pooledZ([2])), (3 + 1) / 2);
  equal(towardFamily(3, undefined), 1.5);
  equal(pooledZ([]).spread, 1);
});
