import { equal, ok, throws } from "node:assert/strict";
import { better, defaultMetric, METRICS, type Prediction, score } from "./metrics.ts";

const bin = (v: number[]): Prediction => ({ task: "binary", k: 1, values: Float64Array.from(v) });
const reg = (v: number[]): Prediction => ({ task: "regression", k: 1, values: Float64Array.from(v) });
const multi = (rows: number[][]): Prediction => ({
  task: "multiclass",
  k: rows[0]!.length,
  values: Float64Array.from(rows.flat()),
});
const near = (a: number, b: number, what: string) => ok(Math.abs(a - b) < 1e-9, `${what}: ${a} vs ${b}`);

Deno.test("score() accuracy thresholds binary probabilities at 0.5 and takes the argmax for multiclass", () => {
  equal(score("accuracy", [0, 1, 1, 0], bin([0.2, 0.6, 0.4, 0.5])), 0.5);
  equal(score("accuracy", [0, 2], multi([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]])), 1);
});

Deno.test("score() auc matches hand-computed values, ties counting one half", () => {
  near(score("auc", [0, 0, 1, 1], bin([0.1, 0.4, 0.35, 0.8])), 0.75, "no ties");
  near(score("auc", [0, 1, 0, 1], bin([0.5, 0.5, 0.2, 0.9])), 0.875, "one tied pair");
  near(score("auc", [1, 0, 1, 0], bin([0.3, 0.3, 0.3, 0.3])), 0.5, "all tied");
  ok(Number.isNaN(score("auc", [1, 1], bin([0.2, 0.9]))), "one class only");
});

Deno.test("score() multiclass auc is the macro mean of one-vs-rest AUCs", () => {
  const p = multi([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.3, 0.3, 0.4], [0.3, 0.6, 0.1]]);
  near(score("auc", [0, 1, 2, 0], p), (0.875 + 2 / 3 + 1) / 3, "ovr macro");
});

Deno.test("score() logloss is the clipped mean negative log-likelihood", () => {
  near(score("logloss", [1, 0], bin([0.8, 0.3])), -(Math.log(0.8) + Math.log(0.7)) / 2, "binary");
  near(score("logloss", [0, 1], bin([1, 0])), -Math.log(1e-15), "clipped");
  near(
    score("logloss", [0, 2], multi([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]])),
    -(Math.log(0.7) + Math.log(0.6)) / 2,
    "multi",
  );
});

Deno.test("score() r2, rmse and mae match hand-computed values", () => {
  near(score("r2", [1, 2, 3, 4], reg([1, 2, 3, 5])), 0.8, "r2");
  near(score("rmse", [1, 2, 3, 4], reg([1, 2, 3, 5])), 0.5, "rmse");
  near(score("mae", [1, 2, 3, 4], reg([1, 2, 3, 6])), 0.5, "mae");
  equal(score("r2", [2, 2], reg([2, 2])), 1);
  equal(score("r2", [2, 2], reg([2, 3])), 0);
});

Deno.test("METRICS give each metric its direction, and defaults follow the task", () => {
  equal(METRICS.auc.direction, "higher");
  equal(METRICS.logloss.direction, "lower");
  ok(better("rmse", 1, 2) && better("accuracy", 0.9, 0.8) && !better("mae", 3, 2));
  equal(defaultMetric("binary"), "accuracy");
  equal(defaultMetric("multiclass"), "accuracy");
  equal(defaultMetric("regression"), "r2");
});

Deno.test("score() refuses a metric of the wrong task and mismatched lengths", () => {
  throws(() => score("r2", [0, 1], bin([0.1, 0.9])), /Cannot score binary predictions with "r2"/);
  throws(() => score("accuracy", [0, 1, 1], bin([0.1, 0.9])), /3 labels for 2 predictions/);
});

Deno.test("score() auc equals the rank-sum with average ranks bit for bit, ties and every class included", () => {
  // The rank-sum with average ranks, written out directly, as the reference.
  const rankSum = (y: number[], s: number[], positive: number) => {
    const order = s.map((_, i) => i).sort((a, b) => s[a]! - s[b]!);
    let sum = 0, nPos = 0;
    for (let i = 0; i < order.length;) {
      let j = i;
      while (j + 1 < order.length && s[order[j + 1]!] === s[order[i]!]) j++;
      for (let t = i; t <= j; t++) if (y[order[t]!] === positive) (sum += (i + j) / 2 + 1), nPos++;
      i = j + 1;
    }
    const nNeg = y.length - nPos;
    return nPos && nNeg ? (sum - (nPos * (nPos + 1)) / 2) / (nPos * nNeg) : NaN;
  };
  let seed = 11;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let t = 0; t < 500; t++) {
    const n = 2 + Math.floor(rnd() * 80), levels = 1 + Math.floor(rnd() * 6);
    const y = Array.from({ length: n }, () => (rnd() < 0.4 ? 1 : 0));
    const s = Array.from({ length: n }, () => (t % 2 ? Math.floor(rnd() * levels) / levels : rnd()));
    const got = score("auc", y, bin(s)), want = rankSum(y, s, 1);
    ok(Object.is(got, want), `case ${t}: ${got} vs ${want}`);
    const k = 3, yk = y.map((_, i) => (i * 7 + t) % k);
    const rows = s.map((v, i) => [v, (v * 3 + i % 2) % 1, 1 - v]);
    const want3 = [0, 1, 2].map((c) => rankSum(yk, rows.map((r) => r[c]!), c)).filter((a) =>
      !Number.isNaN(a)
    );
    const got3 = score("auc", yk, multi(rows));
    ok(
      Object.is(got3, want3.length ? want3.reduce((a, b) => a + b, 0) / want3.length : NaN),
      `multiclass ${t}`,
    );
  }
  ok(Number.isNaN(score("auc", [1, 1], bin([0.2, 0.3]))), "one class absent");
});
