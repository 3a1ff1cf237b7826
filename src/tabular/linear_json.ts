/**
 * Reading a linear model back (`arrow-linear/1`): `JSON.stringify(model)` is the serialised form; the parser
 * checks a value read from disk (perhaps from a worker) — shapes, finiteness, positive scales — before
 * `predictLinear` trusts it.
 *
 * @module
 */
import { type LinearColumn, type LinearModel, linearParams } from "./linear.ts";
import { finiteNumbers, modelHeader } from "./model_json.ts";

const bad = (why: string): never => {
  throw new TypeError(`Cannot read the linear model: ${why}`);
};

const numbers = (v: unknown, what: string, n?: number) => finiteNumbers(v, what, bad, n);

/** Validates a parsed JSON value as a linear model. */
export function parseLinearModel(v: unknown): LinearModel {
  const { m, task, classes, features, k } = modelHeader(v, "arrow-linear/1", bad);
  if (!Array.isArray(m.columns) || m.columns.length !== features.length) {
    bad(`columns is not a list of ${features.length} column readings`);
  }
  const columns = (m.columns as unknown[]).map((c, j): LinearColumn => {
    const o = (typeof c === "object" && c !== null ? c : bad(`column ${j} is not an object`)) as Record<
      string,
      unknown
    >;
    const [mean, scale] = numbers([o.mean, o.scale], `column ${j}`, 2);
    if (!(scale! > 0)) bad(`column ${j} has scale ${scale}`);
    if (typeof o.indicator !== "boolean") bad(`column ${j} indicator is not true or false`);
    return { mean: mean!, scale: scale!, indicator: o.indicator as boolean };
  });
  const intercept = numbers(m.intercept, "intercept", k);
  const width = features.length + columns.filter((c) => c.indicator).length;
  if (!Array.isArray(m.weights) || m.weights.length !== k) bad(`weights is not a list of ${k} outputs`);
  const weights = (m.weights as unknown[]).map((w, i) => numbers(w, `weights ${i}`, width));
  const params = linearParams(m.params as Record<string, number>);
  const iterations = m.iterations;
  if (!Number.isInteger(iterations) || (iterations as number) < 0) {
    bad(`iterations ${JSON.stringify(iterations)}`);
  }
  return {
    format: "arrow-linear/1",
    task: task as LinearModel["task"],
    classes,
    features,
    columns,
    intercept,
    weights,
    params,
    iterations: iterations as number,
  };
}
