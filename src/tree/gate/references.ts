/**
 * The references every run scores on its final test, on the same splits, beside the start and the admitted
 * result: a strong default of the toolkit (a histogram-GBDT configuration fit on dev + held-out) and a
 * trivial baseline (the majority class's share, or the mean, of dev + held-out). Both are Arrow's own code on
 * the raw columns — no step module runs — so they are fit here, in the coordinator, once, at the end.
 *
 * @module
 */
import {
  fitPipeline,
  type GbdtParams,
  type Prediction,
  predictPipeline,
  type Rows,
  score,
  STRONG_GBDT,
} from "../../tabular/mod.ts";
import type { TreeData } from "../data.ts";
import { labelsOf } from "../execute/predictions.ts";

/** The strong default reference: the toolkit's STRONG_GBDT (tabular/gbdt_params.ts). */
export const STRONG_DEFAULT: Readonly<Partial<GbdtParams>> = STRONG_GBDT;

/** A score for the record: NaN (e.g. AUC on a test part holding one class) is no score. */
export const scoreOrNull = (x: number) => (Number.isFinite(x) ? x : null);

/** The trivial prediction for `n` rows: the class shares (binary: P(class 1)) or the mean of `train`. */
export function trivialPrediction(data: TreeData, train: Rows, n: number): Prediction {
  const { target } = data.task;
  const y = labelsOf(target, train);
  if (target.task === "regression") {
    const mean = y.reduce((s, v) => s + v, 0) / Math.max(1, y.length);
    return { task: target.task, k: 1, values: new Float64Array(n).fill(mean) };
  }
  const counts = new Array<number>(target.classes.length).fill(0);
  for (const v of y) counts[v]! += 1;
  const shares = counts.map((c) => c / Math.max(1, y.length));
  if (target.task === "binary") {
    return { task: target.task, k: 1, values: new Float64Array(n).fill(shares[1]!) };
  }
  const k = shares.length;
  const values = new Float64Array(n * k);
  for (let i = 0; i < n; i++) for (let c = 0; c < k; c++) values[i * k + c] = shares[c]!;
  return { task: target.task, k, values };
}

/** The strong default fit on `train` (seeded like the run), predicting `rows`. */
export function strongDefault(data: TreeData, train: Rows, rows: Rows, seed: number): Prediction {
  const spec = { target: data.task.target, model: { ...STRONG_DEFAULT, seed } };
  return predictPipeline(fitPipeline(data.table, train, spec), data.table, rows, spec);
}

/** The trivial baseline's score on `rows` (the caller holds the labels: the merge gate). */
export function trivialScore(data: TreeData, train: Rows, rows: Rows): number | null {
  const { target, metric } = data.task;
  return scoreOrNull(score(metric, labelsOf(target, rows), trivialPrediction(data, train, rows.length)));
}
