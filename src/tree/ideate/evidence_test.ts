import { deepEqual, equal, ok } from "node:assert/strict";
import { makeTarget, type Prediction, readTable } from "../../tabular/mod.ts";
import { explainedShare, residuals, residualSummary } from "./evidence.ts";
import { EVIDENCE_BONUS, EVIDENCE_FULL, evidenceBonus, type Idea } from "./rank.ts";
import type { ColumnInfo } from "../types.ts";

const close = (a: number, b: number) => ok(Math.abs(a - b) < 1e-12, `${a} ≠ ${b}`);

Deno.test("explainedShare: the ω²-like share of residual variance between groups, pinned", () => {
  // Groups that split the residuals exactly: all of it.
  close(explainedShare([1, 1, -1, -1], ["a", "a", "b", "b"])!.explained, 1);
  // Means a = 1, b = −1: SSB 4 of SST 8, MSW (8 − 4) / 2 = 2, so (4 − 2) / (8 + 2) = 0.2.
  close(explainedShare([2, 0, 0, -2], ["a", "a", "b", "b"])!.explained, 0.2);
  // Groups with equal means explain nothing (never below 0); one group, or rows left out, is no evidence.
  equal(explainedShare([1, -1, 1, -1], ["a", "a", "b", "b"])!.explained, 0);
  equal(explainedShare([1, 2, 3], ["a", "a", null]), null);
});

const CSV = ["g,x,y", ...Array.from({ length: 40 }, (_, i) => `${"pq"[i % 2]},${i},${i % 2 ? 10 : 0}`)].join(
  "\n",
);

Deno.test("residualSummary reads only the rows it is given: poisoning every other row changes nothing", () => {
  const table = readTable(CSV);
  const target = makeTarget(table, "y", "regression");
  const columns: ColumnInfo[] = [
    { name: "g", kind: "categorical", missing: 0, distinct: 2, min: null, nameLike: false, rare: 0 },
    { name: "x", kind: "numeric", missing: 0, distinct: 40, min: 0, nameLike: false, rare: 0 },
  ];
  const rows = Int32Array.from({ length: 30 }, (_, i) => i);
  // A model that predicts the mean everywhere: the residuals are the group effect of g, and x does not carry it.
  const pred: Prediction = { task: "regression", k: 1, values: new Float64Array(30).fill(5) };
  const got = residualSummary(table, target, columns, rows, pred);
  equal(got[0]!.column, "g");
  ok(got[0]!.explained > 0.9);
  deepEqual(Array.from(residuals(target, rows, pred)).slice(0, 2), [-5, 5]);
  // Rows 30–39 stand for held-out and test rows: flipped labels and features there leave the summary as it is.
  const poisoned = readTable(
    CSV.split("\n").map((l, i) => (i > 30 ? `${"qp"[i % 2]},${-i},${i % 2 ? 0 : 99}` : l)).join("\n"),
  );
  deepEqual(residualSummary(poisoned, makeTarget(poisoned, "y", "regression"), columns, rows, pred), got);
});

Deno.test("residualSummary keeps a column's groups per table and rows: other rows, another node, the same answer as fresh", () => {
  const columns: ColumnInfo[] = [
    { name: "g", kind: "categorical", missing: 0, distinct: 2, min: null, nameLike: false, rare: 0 },
    { name: "x", kind: "numeric", missing: 0, distinct: 40, min: 0, nameLike: false, rare: 0 },
  ];
  const table = readTable(CSV);
  const target = makeTarget(table, "y", "regression");
  const flat = (n: number, v: number): Prediction => ({
    task: "regression",
    k: 1,
    values: new Float64Array(n).fill(v),
  });
  const ramp = (n: number): Prediction => ({
    task: "regression",
    k: 1,
    values: Float64Array.from({ length: n }, (_, i) => i / 4),
  });
  const first = Int32Array.from({ length: 30 }, (_, i) => i);
  const odd = Int32Array.from({ length: 20 }, (_, i) => 39 - 2 * i);
  // Each summary on the shared table (groups kept after the first) equals one on a table read afresh.
  for (
    const [rows, pred] of [[first, flat(30, 5)], [first, ramp(30)], [odd, ramp(20)], [
      first,
      flat(30, 1),
    ]] as const
  ) {
    const fresh = readTable(CSV);
    deepEqual(
      residualSummary(table, target, columns, rows, pred),
      residualSummary(fresh, makeTarget(fresh, "y", "regression"), columns, rows, pred),
    );
  }
});

Deno.test("evidenceBonus: a feature step on a column the residuals vary with, scaled to EVIDENCE_FULL", () => {
  const idea = (family: Idea["family"], columns: string[]): Idea => ({
    family,
    columns,
    params: {},
    text: "",
    model: {},
    prior: 0,
  });
  const ev = [{ column: "g", explained: EVIDENCE_FULL / 2, groups: 2, worst: null }];
  close(evidenceBonus(idea("target_encode", ["g"]), ev), EVIDENCE_BONUS / 2);
  equal(evidenceBonus(idea("drop_column", ["g"]), ev), 0);
  equal(evidenceBonus(idea("target_encode", ["h"]), ev), 0);
  equal(evidenceBonus(idea("target_encode", ["g"]), null), 0);
});
