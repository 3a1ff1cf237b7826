/**
 * Permutation importance of a fitted pipeline's input columns on rows it was not fit on: for each column, its
 * values are shuffled among the rows (a seeded permutation, the other columns untouched) and the mean per-row
 * loss rises by how much the model relied on it. Unlike split counts it is measured where it matters (rows
 * the model did not see), it is the same for a GBDT and a linear model, and it says when a column hurts: a
 * column whose shuffling *lowers* the loss is noise the model fitted.
 *
 * @module
 */
import { alive } from "./alive.ts";
import { applyEncoding } from "./encode.ts";
import type { Prediction } from "./metrics.ts";
import { predictModel } from "./model.ts";
import type { FittedPipeline } from "./pipeline.ts";
import { mulberry32, shuffleInPlace, subSeed } from "./prng.ts";
import { allRows, type Column, type Table } from "./table.ts";

/** A column's importance: the mean per-row loss increase when it is shuffled (negative: it hurt). */
export interface ColumnImportance {
  column: string;
  gain: number;
}

/** Most columns measured (the first ones the model reads, in table order): each costs an encoding and a
 * prediction. */
export const IMPORTANCE_MAX_COLUMNS = 64;

function permuted(col: Column, order: Int32Array): Column {
  const n = order.length;
  switch (col.kind) {
    case "numeric":
    case "boolean":
      return { ...col, values: Float64Array.from({ length: n }, (_, i) => col.values[order[i]!]!) };
    case "categorical":
      return { ...col, codes: Int32Array.from({ length: n }, (_, i) => col.codes[order[i]!]!) };
    case "text":
      return { ...col, values: Array.from({ length: n }, (_, i) => col.values[order[i]!] ?? null) };
  }
}

/**
 * Each column's permutation importance for `fitted` on `table` (rows already in the fitted schema, as
 * `predictTable` takes them), with `loss(pred)` the per-row losses of a prediction of every row of `table`.
 * The same permutation (seeded by `seed` and the column's name) is used for a column every time, so the
 * result is a pure function of its inputs.
 */
export function permutationImportance(
  fitted: FittedPipeline,
  table: Table,
  loss: (pred: Prediction) => Float64Array,
  seed: number,
): ColumnImportance[] {
  const rows = allRows(table);
  const base = mean(loss(predictModel(fitted.model, applyEncoding(fitted.encoding, table, rows))));
  const out: ColumnImportance[] = [];
  if (table.nRows < 2) return out;
  // Only the columns the model reads: the target (present when no transform ran) and columns the encoders
  // left out would measure nothing.
  const used = new Set(fitted.encoding.encoders.map((e) => e.column));
  let measured = 0;
  table.columns.forEach((col, j) => {
    if (!used.has(col.name) || measured >= IMPORTANCE_MAX_COLUMNS) return;
    measured++;
    alive();
    const order = Int32Array.from(rows);
    shuffleInPlace(order, mulberry32(subSeed(seed, `importance:${col.name}`)));
    const columns = table.columns.slice();
    columns[j] = permuted(col, order);
    const shuffled: Table = { nRows: table.nRows, columns };
    const pred = predictModel(fitted.model, applyEncoding(fitted.encoding, shuffled, rows));
    out.push({ column: col.name, gain: mean(loss(pred)) - base });
  });
  return out;
}

function mean(xs: Float64Array): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i]!;
  return xs.length ? s / xs.length : 0;
}
