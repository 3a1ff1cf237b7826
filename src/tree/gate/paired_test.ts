/**
 * The gate's paired bootstrap: its fast per-row path against rescoring, and its behaviour at the extremes.
 *
 * @module
 */
import { equal, ok } from "node:assert/strict";
import type { MetricName, Prediction } from "../../tabular/mod.ts";
import { mulberry32 } from "../../tabular/prng.ts";
import { LINEARIZE_ABOVE, pairedBootstrap, resamplesFor } from "./paired.ts";

const N = 60;
const rng = mulberry32(11);
const labels = (k: number) => Float64Array.from({ length: N }, (_, i) => i % k);
const probs = (k: number): Prediction => {
  const values = new Float64Array(N * k);
  for (let i = 0; i < N; i++) {
    const raw = Array.from({ length: k }, () => rng() + 0.05);
    const sum = raw.reduce((a, b) => a + b, 0);
    raw.forEach((v, c) => (values[i * k + c] = v / sum));
  }
  return {
    task: k === 2 ? "binary" : "multiclass",
    k: k === 2 ? 1 : k,
    values: k === 2 ? values.filter((_, j) => j % 2 === 1) : values,
  };
};
const tied = (p: Prediction): Prediction => ({ ...p, values: p.values.map((v) => Math.round(v * 4) / 4) });
const reg = (y: Float64Array, noise: number): Prediction => ({
  task: "regression",
  k: 1,
  values: Float64Array.from(y, (v) => v + noise * (rng() - 0.5)),
});

Deno.test("pairedBootstrap() per-row sums give the numbers of rescoring every resample, metric by metric", () => {
  const yReg = Float64Array.from({ length: N }, () => 10 * rng());
  const cases: [MetricName, Float64Array, Prediction, Prediction][] = [
    ["accuracy", labels(3), probs(3), probs(3)],
    ["logloss", labels(3), probs(3), probs(3)],
    ["logloss", labels(2), probs(2), probs(2)],
    ["mae", yReg, reg(yReg, 2), reg(yReg, 3)],
    ["rmse", yReg, reg(yReg, 2), reg(yReg, 3)],
    ["r2", yReg, reg(yReg, 2), reg(yReg, 3)],
    ["auc", labels(2), probs(2), probs(2)],
    ["auc", labels(3), probs(3), probs(3)],
    // Tied scores (half ranks) on both sides.
    ["auc", labels(2), tied(probs(2)), tied(probs(2))],
  ];
  for (const [metric, y, c, inc] of cases) {
    const sign = metric === "accuracy" || metric === "r2" || metric === "auc" ? 1 : -1;
    const fast = pairedBootstrap(metric, y, c, inc, sign, 5, 300);
    const slow = pairedBootstrap(metric, y, c, inc, sign, 5, 300, true);
    equal(fast.gain, slow.gain, metric);
    equal(fast.b, slow.b, metric);
    ok(Math.abs(fast.se - slow.se) <= 1e-9 * Math.max(1, slow.se), `${metric}: ${fast.se} vs ${slow.se}`);
    ok(fast.se > 0, `${metric} has spread`);
  }
});

Deno.test("pairedBootstrap() finds no spread between identical predictions and a clear gain for a better one", () => {
  const y = labels(2);
  const same = probs(2);
  const zero = pairedBootstrap("auc", y, same, same, 1, 1, 200);
  equal(zero.gain, 0);
  equal(zero.se, 0);
  const perfect: Prediction = { task: "binary", k: 1, values: Float64Array.from(y, (v) => 0.2 + 0.6 * v) };
  const better = pairedBootstrap("auc", y, perfect, same, 1, 1, 200);
  ok(better.gain > 3 * better.se, JSON.stringify(better));
  equal(better.b, 200, "stratified resamples keep both classes, so every AUC is defined");
});

Deno.test("resamplesFor() keeps 1,000 resamples up to 1,000 rows, then about a million draws, never under 250", () => {
  equal(resamplesFor(57), 1000);
  equal(resamplesFor(1000), 1000);
  equal(resamplesFor(2000), 500);
  equal(resamplesFor(4000), 250);
  equal(resamplesFor(100_000), 250);
  // The default follows the part's size: a large part's comparison draws ~a million rows.
  const y = Float64Array.from({ length: 4000 }, () => 10 * rng());
  equal(pairedBootstrap("mae", y, reg(y, 2), reg(y, 3), -1, 2).b, 250);
});

Deno.test("on a large part, an AUC comparison is linearized and agrees with the stratified bootstrap", () => {
  const n = 3000;
  const r = mulberry32(4);
  for (const k of [2, 3]) {
    const y = Float64Array.from({ length: n }, () => Math.floor(r() * k));
    // Scores that carry the label and noise, rounded so there are ties.
    const pred = (noise: number): Prediction => {
      const values = new Float64Array(k === 2 ? n : n * k);
      for (let i = 0; i < n; i++) {
        if (k === 2) values[i] = Math.round((y[i]! + noise * (r() - 0.5)) * 20) / 20;
        else {for (let c = 0; c < k; c++) {
            values[i * k + c] = Math.round(((y[i] === c ? 1 : 0) + noise * r()) * 20) / 20;
          }}
      }
      return { task: k === 2 ? "binary" : "multiclass", k: k === 2 ? 1 : k, values };
    };
    const c = pred(2), inc = pred(2.4);
    const lin = pairedBootstrap("auc", y, c, inc, 1, 9);
    equal(lin.method, "linearized");
    const boot = pairedBootstrap("auc", y, c, inc, 1, 9, 2000);
    equal(boot.method, "bootstrap");
    equal(lin.gain, boot.gain);
    ok(Math.abs(lin.se - boot.se) <= 0.1 * boot.se, `k=${k}: linearized ${lin.se} vs bootstrap ${boot.se}`);
    // Identical predictions: no gain, no spread.
    const same = pairedBootstrap("auc", y, c, c, 1, 9);
    equal(same.gain, 0);
    equal(same.se, 0);
  }
  // At and under the threshold the bootstrap stays, so small parts keep their numbers.
  const y = labels(2);
  equal(pairedBootstrap("auc", y, probs(2), probs(2), 1, 1, 50).method, "bootstrap");
  equal(LINEARIZE_ABOVE, 1000);
});
