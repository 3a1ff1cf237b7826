/**
 * Cross-validation on the dev folds and one-shot evaluation on another part, the two measurements tree mode
 * makes: executors report `crossValidate` (dev only), the merge gate and the final report call `evaluateOn`
 * with the held-out or test rows. Every fit goes through `fitPipeline`, so transforms and encoders are fit on
 * training rows only.
 *
 * @module
 */
import { type Direction, type MetricName, METRICS, type Prediction, score } from "./metrics.ts";
import { fitPipeline, type FittedPipeline, type PipelineSpec, predictPipeline } from "./pipeline.ts";
import type { Splits } from "./split.ts";
import type { Rows, Table } from "./table.ts";

export interface FoldScore {
  fold: number;
  score: number;
  nTrain: number;
  nValid: number;
}

export interface CvReport {
  metric: MetricName;
  direction: Direction;
  folds: FoldScore[];
  mean: number;
  /** Sample standard deviation (n − 1) of the fold scores; 0 for a single fold. */
  std: number;
}

function labels(spec: PipelineSpec, rows: Rows): Float64Array {
  return Float64Array.from(rows, (r) => spec.target.y[r]!);
}

function checkMetric(metric: MetricName, spec: PipelineSpec): void {
  if (!METRICS[metric].tasks.includes(spec.target.task)) {
    throw new RangeError(`Cannot use metric ${JSON.stringify(metric)} for a ${spec.target.task} target`);
  }
}

/** Mean and sample standard deviation. */
export function meanStd(xs: readonly number[]): { mean: number; std: number } {
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  const v = xs.length > 1 ? xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (xs.length - 1) : 0;
  return { mean, std: Math.sqrt(v) };
}

/** Scores `spec` on each dev fold of `splits` (fit on the fold's train rows, scored on its valid rows). */
export function crossValidate(
  table: Table,
  splits: Splits,
  spec: PipelineSpec,
  metric: MetricName,
): CvReport {
  checkMetric(metric, spec);
  const folds = splits.folds.map((f, i): FoldScore => {
    const fitted = fitPipeline(table, f.train, spec);
    const pred = predictPipeline(fitted, table, f.valid, spec);
    return {
      fold: i,
      score: score(metric, labels(spec, f.valid), pred),
      nTrain: f.train.length,
      nValid: f.valid.length,
    };
  });
  return { metric, direction: METRICS[metric].direction, folds, ...meanStd(folds.map((f) => f.score)) };
}

export interface Evaluation {
  score: number;
  prediction: Prediction;
  fitted: FittedPipeline;
}

/** Fits on `train` (usually all dev rows) and scores once on `rows` (held-out or test). */
export function evaluateOn(
  table: Table,
  train: Rows,
  rows: Rows,
  spec: PipelineSpec,
  metric: MetricName,
): Evaluation {
  checkMetric(metric, spec);
  const fitted = fitPipeline(table, train, spec);
  const prediction = predictPipeline(fitted, table, rows, spec);
  return { score: score(metric, labels(spec, rows), prediction), prediction, fitted };
}
