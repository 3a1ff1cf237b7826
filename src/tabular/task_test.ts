import { deepEqual, equal, throws } from "node:assert/strict";
import { readTable } from "./read.ts";
import { makeTask } from "./task.ts";

const table = readTable(
  "x,y\n" + Array.from({ length: 40 }, (_, i) => `${i},${i % 2 ? "yes" : "no"}`).join("\n"),
  "t.csv",
);

Deno.test("makeTask() infers the task, picks the default metric and direction, and cuts the splits", () => {
  const t = makeTask(table, "y", { seed: 1, folds: 4 });
  deepEqual([t.target.task, t.metric, t.direction, t.splits.folds.length], [
    "binary",
    "accuracy",
    "higher",
    4,
  ]);
  equal(makeTask(table, "y", { seed: 1, metric: "logloss" }).direction, "lower");
  equal(makeTask(table, "x", { seed: 1 }).metric, "r2");
});

Deno.test("makeTask() refuses a metric that does not fit the task, naming the ones that do", () => {
  throws(() => makeTask(table, "y", { seed: 1, metric: "rmse" }), /use one of accuracy, auc, logloss/);
  throws(
    () => makeTask(table, "x", { seed: 1, metric: "auc" }),
    /regression target "x": use one of r2, rmse, mae/,
  );
});
