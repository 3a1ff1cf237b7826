/**
 * Reading a linear model back (`arrow-linear/1`): `JSON.stringify(model)` is the serialised form; the parser
 * checks a value read from disk (perhaps from a worker) — shapes, finiteness, positive scales — before
 * `predictLinear` trusts it.
 *
 * @module
 */
import { type LinearColumn, type LinearModel, linearParams } from "./linear.ts";

const bad = (why: string): never => {
  throw new TypeError(`Cannot read the linear model: ${why}`);
};

function numbers(v: unknown, what: string, n: number): number[] {
  if (!Array.isArray(v) || v.some((x) => typeof x !== "number" || !Number.isFinite(x))) {
    bad(`${what} is not a list of finite numbers`);
  }
  const a = v as number[];
  if (a.length !== n) bad(`${what} has ${a.length} entries, expected ${n}`);
  return a;
}

/** Validates a parsed JSON value as a linear model. */
export function parseLinearModel(v: unknown): LinearModel {
  if (typeof v !== "object" || v === null) return bad("it is not an object");
  const m = v as Record<string, unknown>;
  if (m.format !== "arrow-linear/1") bad(`format ${JSON.stringify(m.format)} is not "arrow-linear/1"`);
  const task = m.task;
  if (task !== "regression" && task !== "binary" && task !== "multiclass") {
    bad(`task ${JSON.stringify(task)}`);
  }
  const strings = (x: unknown, what: string) =>
    Array.isArray(x) && x.every((s) => typeof s === "string")
      ? (x as string[])
      : bad(`${what} is not a list of names`);
  const classes = strings(m.classes, "classes");
  const features = strings(m.features, "features");
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
  const k = task === "multiclass" ? classes.length : 1;
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
