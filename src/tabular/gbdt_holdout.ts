/**
 * The share of training rows the GBDT holds aside for early stopping: drawn from the seed alone, per class for
 * classification (so each class keeps its share on both sides), from all rows for regression.
 *
 * @module
 */
import type { Matrix } from "./encode.ts";
import { mulberry32, shuffleInPlace, subSeed } from "./prng.ts";
import type { Task } from "./target.ts";

/** Row indices (ascending) kept for fitting and held aside for validation. */
export function holdOut(
  y: ArrayLike<number>,
  task: Task,
  fraction: number,
  seed: number,
): { train: Int32Array; valid: Int32Array } {
  const rng = mulberry32(subSeed(seed, "gbdt-validation"));
  const groups = new Map<number, number[]>();
  for (let i = 0; i < y.length; i++) {
    const key = task === "regression" ? 0 : y[i]!;
    let g = groups.get(key);
    if (!g) groups.set(key, g = []);
    g.push(i);
  }
  const held = new Uint8Array(y.length);
  // Classes in label order, so the draw does not depend on which class the first row happens to have.
  for (const key of [...groups.keys()].sort((a, b) => a - b)) {
    const rows = Int32Array.from(groups.get(key)!);
    shuffleInPlace(rows, rng);
    // A class with a single row stays on the fitting side.
    const take = Math.min(rows.length - 1, Math.round(fraction * rows.length));
    for (let t = 0; t < take; t++) held[rows[t]!] = 1;
  }
  const train: number[] = [], valid: number[] = [];
  for (let i = 0; i < y.length; i++) (held[i] ? valid : train).push(i);
  return { train: Int32Array.from(train), valid: Int32Array.from(valid) };
}

/** The rows `rows` of X as a new matrix. */
export function matrixRows(X: Matrix, rows: Int32Array): Matrix {
  return {
    names: X.names,
    columns: X.columns.map((c) => Float64Array.from(rows, (r) => c[r]!)),
    nRows: rows.length,
  };
}
