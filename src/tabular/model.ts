/**
 * The model a pipeline fits, chosen by its spec: `{ kind: "gbdt", ...GbdtParams }`, `{ kind: "linear",
 * alpha }`, or — the shape every earlier artifact used — GBDT parameters without a `kind`, read as a GBDT.
 * One fit, one predict and one parser dispatch on the choice, so metrics and CV never look at the model kind.
 *
 * @module
 */
import type { Matrix } from "./encode.ts";
import { fitGbdt, type GbdtModel, type GbdtParams, predictGbdt } from "./gbdt.ts";
import { parseGbdtModel } from "./gbdt_json.ts";
import { fitLinear, type LinearModel, type LinearParams, predictLinear } from "./linear.ts";
import { parseLinearModel } from "./linear_json.ts";
import type { Prediction } from "./metrics.ts";
import type { Task } from "./target.ts";

export type ModelSpec =
  | ({ kind: "gbdt" } & Partial<GbdtParams>)
  | ({ kind: "linear" } & Partial<LinearParams>)
  | Partial<GbdtParams>;

export type FittedModel = GbdtModel | LinearModel;

/** Fits the model `spec` chooses (GBDT when it names no kind). */
export function fitModel(
  X: Matrix,
  y: ArrayLike<number>,
  task: Task,
  classes: readonly string[],
  spec: ModelSpec = {},
): FittedModel {
  if ("kind" in spec) {
    const { kind, ...params } = spec as { kind: unknown } & Record<string, number>;
    if (kind === "linear") return fitLinear(X, y, task, classes, params);
    if (kind === "gbdt") return fitGbdt(X, y, task, classes, params);
    throw new RangeError(`Cannot use model kind ${JSON.stringify(kind)}: use "gbdt" or "linear"`);
  }
  return fitGbdt(X, y, task, classes, spec);
}

/** Predicts the rows of X with either model. */
export function predictModel(model: FittedModel, X: Matrix): Prediction {
  return model.format === "arrow-linear/1" ? predictLinear(model, X) : predictGbdt(model, X);
}

/** Validates a parsed JSON value as either model, by its `format`. */
export function parseModel(v: unknown): FittedModel {
  const format = typeof v === "object" && v !== null ? (v as { format?: unknown }).format : undefined;
  return format === "arrow-linear/1" ? parseLinearModel(v) : parseGbdtModel(v);
}
