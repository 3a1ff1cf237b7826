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
