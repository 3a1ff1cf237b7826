/**
 * One fitted path from raw table rows to predictions: the feature transform (optional) fit on the training
 * rows, its output read into a schema fixed by those rows, encoders fit on those rows, and the model (GBDT or linear, model.ts). Nothing
 * here ever looks at a row outside `train` while fitting; other rows only pass through `transform`, without
 * their target column.
 *
 * @module
 */
import {
  applyEncoding,
  applyEncodingToTrain,
  type Encoding,
  type EncodingOptions,
  fitEncoding,
} from "./encode.ts";
import type { Prediction } from "./metrics.ts";
import { fitModel as fitChosen, type FittedModel, type ModelSpec, predictModel } from "./model.ts";
import { fromRows, inferSchema, type Row, type Schema, toRows } from "./rows.ts";
import { allRows, type Rows, type Table, takeRows } from "./table.ts";
import type { Target } from "./target.ts";

/**
 * A feature hypothesis as code. `fit` sees the training rows *with* the target column; `transform` sees any
 * rows *without* it and must return one row per input row, in order. `fitTransform`, when present, replaces
 * `transform` for the training rows themselves (for out-of-fold features such as a target mean).
 */
export interface FeatureTransform<S = unknown> {
  fit(trainRows: Row[]): S;
  transform(state: S, rows: Row[]): Row[];
  fitTransform?(trainRows: Row[]): { state: S; rows: Row[] };
}

/** What a transform threw (or returned wrongly), with the phase: the lesson a failed hypothesis leaves. */
export class TransformError extends Error {
  constructor(readonly phase: "fit" | "transform", readonly reason: string) {
    super(`Cannot run the feature transform's ${phase}: ${reason}`);
    this.name = "TransformError";
  }
}

export interface PipelineSpec {
  target: Target;
  transform?: FeatureTransform | null;
  encoding?: EncodingOptions;
  /** The model and its parameters; GBDT parameters without a `kind` are a GBDT. */
  model?: ModelSpec;
}

export interface FittedPipeline {
  /** The transform's fitted state (whatever `fit` returned), null without a transform. */
  state: unknown;
  schema: Schema | null;
  encoding: Encoding;
  model: FittedModel;
}

/** Runs `f` as a transform's `phase`: what it throws becomes a TransformError naming the phase. */
export function guardTransform<T>(phase: "fit" | "transform", f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof TransformError) throw e;
    throw new TransformError(phase, e instanceof Error ? e.message : String(e));
  }
}

/** A transform's output as `n` rows, or a TransformError saying why it is not. */
export function checkedRows(rows: unknown, n: number, phase: "fit" | "transform"): Row[] {
  if (!Array.isArray(rows)) throw new TransformError(phase, "it returned no array of rows");
  if (rows.length !== n) throw new TransformError(phase, `it returned ${rows.length} rows for ${n}`);
  return rows as Row[];
}

/** Fits transform, encoders and model on `train` rows of `table`. */
export function fitPipeline(table: Table, train: Rows, spec: PipelineSpec): FittedPipeline {
  const { target, transform } = spec;
  const y = Float64Array.from(train, (r) => target.y[r]!);
  let trainTable: Table, state: unknown = null, schema: Schema | null = null;
  if (transform) {
    const withTarget = toRows(table, train);
    const out = guardTransform("fit", () => {
      if (transform.fitTransform) return transform.fitTransform(withTarget);
      const s = transform.fit(withTarget);
      return { state: s, rows: transform.transform(s, toRows(table, train, [target.name])) };
    });
    state = out.state;
    const rows = checkedRows(out.rows, train.length, "fit").map((r) => withoutTarget(r, target.name));
    schema = guardTransform("fit", () => inferSchema(rows, "the transform's output"));
    trainTable = fromRows(rows, schema);
  } else trainTable = takeRows(table, train);
  return { state, schema, ...fitModel(trainTable, y, target, spec) };
}

function fitModel(trainTable: Table, y: Float64Array, target: Target, spec: PipelineSpec) {
  const local: Target = { ...target, y, usable: allRows(trainTable) };
  const encoding = fitEncoding(trainTable, local.usable, local, spec.encoding);
  const X = applyEncodingToTrain(encoding, trainTable, local.usable, local);
  const model = fitChosen(X, y, target.task, target.classes, spec.model);
  return { encoding, model };
}

/**
 * Fits encoders and model on `trainTable`: the training rows `train` of the dev table as a feature transform
 * that ran elsewhere produced them (one row per entry of `train`, in order, no target column). Rows to
 * predict then go to `predictTable` already transformed the same way.
 */
export function fitPipelineOn(trainTable: Table, train: Rows, spec: PipelineSpec): FittedPipeline {
  if (trainTable.nRows !== train.length) {
    throw new TransformError("fit", `it returned ${trainTable.nRows} rows for ${train.length}`);
  }
  const y = Float64Array.from(train, (r) => spec.target.y[r]!);
  const schema: Schema = { columns: trainTable.columns.map((c) => ({ name: c.name, kind: c.kind })) };
  return { state: null, schema, ...fitModel(trainTable, y, spec.target, spec) };
}

/** Predicts every row of `table`, already transformed into the fitted schema, with a fitted pipeline. */
export function predictTable(fitted: FittedPipeline, table: Table): Prediction {
  const want = fitted.schema?.columns ?? [];
  const same = want.length === table.columns.length &&
    want.every((c, i) => c.name === table.columns[i]!.name && c.kind === table.columns[i]!.kind);
  if (!same) throw new TransformError("transform", "its output's columns differ from those it was fit on");
  return predictModel(fitted.model, applyEncoding(fitted.encoding, table, allRows(table)));
}

function withoutTarget(r: Row, name: string): Row {
  if (r === null || typeof r !== "object" || !(name in r)) return r;
  const { [name]: _, ...rest } = r;
  return rest;
}

/** `rows` of `table` as the fitted pipeline's model reads them: through the same transform object that was
 * fit (when there is one), into the schema its training rows fixed. */
export function transformedRows(
  fitted: FittedPipeline,
  table: Table,
  rows: Rows,
  spec: PipelineSpec,
): Table {
  if (!spec.transform || !fitted.schema) return takeRows(table, rows);
  const transform = spec.transform;
  const input = toRows(table, rows, [spec.target.name]);
  const out = checkedRows(
    guardTransform("transform", () => transform.transform(fitted.state, input)),
    rows.length,
    "transform",
  );
  return fromRows(out, fitted.schema);
}

/** Predicts `rows` of `table` with a fitted pipeline (the same transform object that was fit). */
export function predictPipeline(
  fitted: FittedPipeline,
  table: Table,
  rows: Rows,
  spec: PipelineSpec,
): Prediction {
  const evalTable = transformedRows(fitted, table, rows, spec);
  return predictModel(fitted.model, applyEncoding(fitted.encoding, evalTable, allRows(evalTable)));
}
