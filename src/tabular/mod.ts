/**
 * The tabular toolkit shared by tree mode and the graph path's `--data`: typed CSV, targets and metrics,
 * seeded splits, encoders fit on training rows, the histogram GBDT and cross-validation. It imports nothing
 * but its own files and Deno's built-ins, so a worker started with
 * `deno run --no-npm --no-remote --allow-read=<file>` can import it.
 *
 * ## How tree mode uses it (one dataset, one seed)
 *
 * ```ts
 * const table = readCsvFile("train.csv");            // CsvError "file:line: Cannot read the CSV: …"
 * const { target, metric, direction, splits } = makeTask(table, "Survived", { seed: 7 });
 * // = makeTarget (task inferred: regression | binary | multiclass) + defaultMetric (or the user's, checked
 * //   against the task) + makeSplits (dev folds / held-out / test, stratified)
 * const spec = { target, transform, model: { stages: 100, maxDepth: 3 } };
 * const cv = crossValidate(table, splits, spec, metric);             // executors: dev folds only
 * const gate = evaluateOn(table, splits.dev, splits.heldout, spec, metric).score; // merge gate only
 * const final = evaluateOn(table, splits.dev, splits.test, spec, metric).score;   // once, at the end
 * ```
 *
 * To keep held-out and test rows out of an executor's reach, give the executor a file of dev rows only
 * (`writeCsv(table, splits.dev)`), the column kinds to force when it reads it back (`columnKinds(table)` as
 * `ReadOptions.types`, so a subset never re-infers differently), and the folds re-indexed into that file
 * (`splitsToJson(restrictSplits(splits, splits.dev))`, read with `splitsFromJson`); run the gate in the
 * parent. (`writeCsv` writes a missing cell empty; a real level spelled like a missing marker, e.g. `NA`,
 * would read back as missing.)
 *
 * ## A feature hypothesis
 *
 * A `FeatureTransform` is `{ fit(trainRows) → state, transform(state, rows) → rows, fitTransform? }` over
 * plain row objects (`Row` = `Record<string, number | string | boolean | null>`; null = missing). `fit` sees
 * training rows with the target column; `transform` sees rows without it and returns one row per input, in
 * order. The output of the training rows fixes the feature columns and their kinds; every other part is read
 * into that schema. Transform failures surface as `TransformError` (phase "fit" or "transform") — the lesson
 * of a failed hypothesis. Text columns are dropped by the encoders; derive numbers or categories from them.
 * `spec.encoding` (`EncodingOptions`) chooses one-hot size, ordinal vs frequency, target-encoded and dropped
 * columns; `spec.model` (`ModelSpec`) the model: GBDT parameters (stages, learningRate, maxDepth,
 * minSamplesLeaf, subsample, l2, minChildWeight, maxBins, seed, and the optional validationFraction,
 * earlyStoppingRounds, colsample), with or without `kind: "gbdt"`, or `{ kind: "linear", alpha }`.
 *
 * ## Models
 * - `fitGbdt(X, y, task, classes, params, { threads })` / `predictGbdt(model, X)`: histogram GBDT
 *   (`arrow-gbdt/1`); `threads: 2` fits on two threads, the same model (`closeGbdtThreads()`).
 *   `validationFraction` (0–0.5) holds a seeded, class-stratified share of the training rows aside and
 *   records their loss in `model.validation`; `earlyStoppingRounds` N stops once that loss has not improved
 *   for N stages and keeps the best stage count (`validation.stagesUsed`). `colsample` (0, 1] draws that
 *   share of features per tree. Left at their defaults, these add nothing to the model JSON.
 * - `fitLinear(X, y, task, classes, { alpha })` / `predictLinear(model, X)`: ridge (regression) or
 *   L2 logistic / softmax regression (`arrow-linear/1`) on standardised inputs with mean imputation and
 *   missing indicators; `alpha` as sklearn's Ridge(alpha) and LogisticRegression(C = 1/alpha).
 * - `fitModel(X, y, task, classes, spec)` / `predictModel(model, X)` / `parseModel(json)` dispatch on the
 *   spec's `kind` (none = GBDT) or the model's `format`; every prediction is a `Prediction`, so `score`,
 *   `crossValidate` and `evaluateOn` work with either.
 *
 * ## Determinism
 * Every random choice is mulberry32 from a seed (`prng.ts`). Same table, spec and seed → the same splits, the
 * same model JSON bytes, the same scores.
 *
 * @module
 */
export { CsvError, type CsvLimits, DEFAULT_LIMITS, parseCsvText, type RawCsv } from "./csv.ts";
export { inferKind, MISSING_MARKERS } from "./infer.ts";
export { type DateParts, dateParts, dayFirst, looksLikeDates } from "./dates.ts";
export {
  type Decimals,
  decimalsNote,
  decodeUtf8,
  type Formats,
  formatsNote,
  isGzip,
  readCsvFile,
  type ReadOptions,
  type ReadTable,
  readTable,
  rowNamesNote,
  type Strays,
  straysNote,
  unpack,
  utf16Bom,
} from "./read.ts";
export {
  allRows,
  cellValue,
  type Column,
  type ColumnKind,
  columnKinds,
  describeTable,
  getColumn,
  isMissing,
  type Rows,
  type Table,
  takeRows,
} from "./table.ts";
export { writeCsv } from "./write.ts";
export { makeTarget, outputsOf, type Target, type Task } from "./target.ts";
export {
  aucBinary,
  better,
  defaultMetric,
  type Direction,
  type MetricName,
  METRICS,
  type Prediction,
  score,
} from "./metrics.ts";
export { mulberry32, type Rng, shuffleInPlace, subSeed } from "./prng.ts";
export {
  type Fold,
  makeSplits,
  restrictSplits,
  type SplitOptions,
  type Splits,
  splitsFromJson,
  type SplitsJson,
  splitsToJson,
} from "./split.ts";
export {
  applyEncoding,
  applyEncodingToTrain,
  type ColumnEncoder,
  type Encoding,
  type EncodingOptions,
  fitEncoding,
  type Matrix,
} from "./encode.ts";
export {
  closeGbdtThreads,
  DEFAULT_GBDT,
  fitGbdt,
  type FitOptions,
  type GbdtModel,
  type GbdtParams,
  gbdtParams,
  predictGbdt,
  type TreeJson,
} from "./gbdt.ts";
export { type GbdtValidation } from "./gbdt.ts";
export { OPTIONAL_GBDT_DEFAULTS, STRONG_GBDT } from "./gbdt_params.ts";
export { parseGbdtModel } from "./gbdt_json.ts";
export { decodeState, encodeState } from "./state_json.ts";
export {
  DEFAULT_LINEAR,
  fitLinear,
  type LinearColumn,
  type LinearModel,
  type LinearParams,
  linearParams,
  predictLinear,
} from "./linear.ts";
export { parseLinearModel } from "./linear_json.ts";
export { fitModel, type FittedModel, type ModelSpec, parseModel, predictModel } from "./model.ts";
export { type Cell, fromRows, inferSchema, type Row, type Schema, toRows } from "./rows.ts";
export {
  checkedRows,
  type FeatureTransform,
  fitPipeline,
  fitPipelineOn,
  type FittedPipeline,
  guardTransform,
  type PipelineSpec,
  predictPipeline,
  predictTable,
  transformedRows,
  TransformError,
} from "./pipeline.ts";
export { type ColumnImportance, IMPORTANCE_MAX_COLUMNS, permutationImportance } from "./importance.ts";
export { makeTask, type TabularTask, type TaskOptions } from "./task.ts";
export { crossValidate, type CvReport, evaluateOn, type Evaluation, type FoldScore, meanStd } from "./cv.ts";
