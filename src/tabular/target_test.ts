import { deepEqual, equal, throws } from "node:assert/strict";
import { readTable } from "./read.ts";
import { makeTarget } from "./target.ts";

const col = (name: string, cells: (string | number)[]) =>
  readTable(`${name}\n${cells.join("\n")}\n`, "t.csv");

Deno.test("makeTarget() infers binary from two values, booleans and two-level text", () => {
  equal(makeTarget(col("y", [0, 1, 1, 0]), "y").task, "binary");
  const b = makeTarget(col("y", ["yes", "no", "NA", "yes"]), "y");
  // The file's own words are the labels: yes/no never becomes true/false.
  deepEqual([b.task, b.classes, Array.from(b.usable)], ["binary", ["no", "yes"], [0, 1, 3]]);
  deepEqual(Array.from(b.y.slice(0, 2)), [1, 0]);
  deepEqual(makeTarget(col("y", ["T", "F", "T"]), "y").classes, ["F", "T"]);
  const s = makeTarget(col("y", ["cat", "dog", "cat"]), "y");
  deepEqual([s.task, s.classes], ["binary", ["cat", "dog"]]);
});

Deno.test("makeTarget() infers multiclass from text levels and from repeated small integer codes", () => {
  equal(makeTarget(col("y", ["a", "b", "c"]), "y").task, "multiclass");
  const codes = Array.from({ length: 60 }, (_, i) => (i % 3) + 1);
  const m = makeTarget(col("y", codes), "y");
  deepEqual([m.task, m.classes, m.y[0]], ["multiclass", ["1", "2", "3"], 0]);
  equal(makeTarget(col("y", codes.slice(0, 30)), "y").task, "regression", "10 per value is a measurement");
  equal(makeTarget(col("y", [1.5, 2, 3, 4]), "y").task, "regression");
});

Deno.test("makeTarget() honours a forced task and refuses impossible ones", () => {
  equal(makeTarget(col("y", [1, 2, 3, 4]), "y", "multiclass").classes.length, 4);
  throws(() => makeTarget(col("y", ["a", "b", "c"]), "y", "binary"), /3 classes/);
  throws(() => makeTarget(col("y", ["a", "b"]), "y", "regression"), /holds text/);
  throws(() => makeTarget(col("y", ["a", "a"]), "y"), /fewer than 2/);
  throws(() => makeTarget(col("y", ["NA", ""]), "y"), /every value is missing/);
  throws(() => makeTarget(col("y", [1, 2]), "z"), /Cannot find column "z"/);
});
