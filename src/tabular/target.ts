/**
 * The target column → a task and a label vector. The task rule (a caller may force one):
 *
 * - boolean column → **binary** (false = class 0, true = class 1), the classes named by the file's own words
 *   (`no`, `yes`), never renamed `false`/`true`;
 * - categorical or text column → **binary** with 2 distinct values, **multiclass** with 3–100;
 * - numeric column → **binary** with exactly 2 distinct values; **multiclass** when every value is an
 *   integer, there are 3–10 distinct values and each appears on average at least 20 times (a label code,
 *   not a measurement); **regression** otherwise.
 *
 * Classes are ordered as the column orders them (sorted levels, or ascending numbers), so class 1 of a
 * binary task is the larger/later value (`1`, `true`, `yes`, the later string). Rows whose target is missing
 * are not usable and are listed apart; splits draw only from usable rows.
 *
 * @module
 */
import { getColumn, type Table } from "./table.ts";

export type Task = "regression" | "binary" | "multiclass";

export interface Target {
  name: string;
  task: Task;
  /** Class labels as text (classification); empty for regression. */
  classes: string[];
  /** Per table row: the value (regression) or the class index (classification); NaN where missing. */
  y: Float64Array;
  /** Table rows whose target is present, ascending. */
  usable: Int32Array;
}

const MAX_CLASSES = 100;

/** Reads the target column `name` of `table` and infers the task unless `task` is given. */
export function makeTarget(table: Table, name: string, task?: Task): Target {
  const col = getColumn(table, name);
  const n = table.nRows;
  const y = new Float64Array(n).fill(NaN);
  let classes: string[] = [];
  let inferred: Task;
  if (col.kind === "boolean") {
    y.set(col.values);
    classes = col.labels ? [...col.labels] : ["false", "true"];
    inferred = "binary";
  } else if (col.kind === "categorical" || col.kind === "text") {
    const raw = col.kind === "categorical"
      ? Array.from(col.codes, (c) => (c < 0 ? null : col.levels[c]!))
      : col.values;
    classes = [...new Set(raw.filter((v): v is string => v !== null))].sort((a, b) => (a < b ? -1 : 1));
    const index = new Map(classes.map((c, k) => [c, k]));
    raw.forEach((v, i) => (y[i] = v === null ? NaN : index.get(v)!));
    inferred = classes.length <= 2 ? "binary" : "multiclass";
    if (task === "regression") {
      throw new RangeError(`Cannot treat target ${JSON.stringify(name)} as regression: it holds text`);
    }
  } else {
    const values = col.values;
    const distinct = [...new Set(values.filter((v) => !Number.isNaN(v)))].sort((a, b) => a - b);
    const present = values.reduce((s, v) => s + (Number.isNaN(v) ? 0 : 1), 0);
    const integers = distinct.every(Number.isInteger);
    inferred = distinct.length === 2
      ? "binary"
      : integers && distinct.length >= 3 && distinct.length <= 10 && present / distinct.length >= 20
      ? "multiclass"
      : "regression";
    const chosen = task ?? inferred;
    if (chosen === "regression") y.set(values);
    else {
      classes = distinct.map(String);
      const index = new Map(distinct.map((v, k) => [v, k]));
      values.forEach((v, i) => (y[i] = Number.isNaN(v) ? NaN : index.get(v)!));
    }
  }
  const chosen = task ?? inferred;
  if (chosen !== "regression") {
    if (classes.length < 2) {
      throw new RangeError(`Cannot use target ${JSON.stringify(name)}: it has fewer than 2 distinct values`);
    }
    if (chosen === "binary" && classes.length > 2) {
      throw new RangeError(
        `Cannot treat target ${JSON.stringify(name)} as binary: it has ${classes.length} classes`,
      );
    }
    if (classes.length > MAX_CLASSES) {
      throw new RangeError(
        `Cannot use target ${JSON.stringify(name)}: ${classes.length} classes (at most 100)`,
      );
    }
  }
  const usable: number[] = [];
  for (let i = 0; i < n; i++) if (!Number.isNaN(y[i]!)) usable.push(i);
  if (usable.length === 0) {
    throw new RangeError(`Cannot use target ${JSON.stringify(name)}: every value is missing`);
  }
  return {
    name,
    task: chosen,
    classes: chosen === "regression" ? [] : classes,
    y,
    usable: Int32Array.from(usable),
  };
}

/** Number of model outputs per row: 1 for regression and binary, K for multiclass. */
export function outputsOf(task: Task, classes: readonly string[]): number {
  return task === "multiclass" ? classes.length : 1;
}
