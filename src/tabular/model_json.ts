/**
 * What every model file shares, read back the same way for each kind (gbdt_json.ts, linear_json.ts): the
 * header — format, task, class and feature names, the number of outputs — and lists of finite numbers.
 * Each kind names itself in the errors through its own `bad`.
 *
 * @module
 */

/** Throws the model kind's TypeError for `why`. */
export type Bad = (why: string) => never;

/** The header every model file opens with, checked. */
export interface ModelHeader {
  m: Record<string, unknown>;
  task: "regression" | "binary" | "multiclass";
  classes: string[];
  features: string[];
  /** Outputs per row: one per class for multiclass, else one. */
  k: number;
}

/** `v` as a model of `format`: an object with a known task and lists of class and feature names. */
export function modelHeader(v: unknown, format: string, bad: Bad): ModelHeader {
  if (typeof v !== "object" || v === null) return bad("it is not an object");
  const m = v as Record<string, unknown>;
  if (m.format !== format) bad(`format ${JSON.stringify(m.format)} is not "${format}"`);
  const task = m.task;
  if (task !== "regression" && task !== "binary" && task !== "multiclass") {
    return bad(`task ${JSON.stringify(task)}`);
  }
  const strings = (x: unknown, what: string) =>
    Array.isArray(x) && x.every((s) => typeof s === "string")
      ? (x as string[])
      : bad(`${what} is not a list of names`);
  const classes = strings(m.classes, "classes");
  const features = strings(m.features, "features");
  return { m, task, classes, features, k: task === "multiclass" ? classes.length : 1 };
}

/** `v` as a list of finite numbers (of `n` entries when given). */
export function finiteNumbers(v: unknown, what: string, bad: Bad, n?: number): number[] {
  if (!Array.isArray(v) || v.some((x) => typeof x !== "number" || !Number.isFinite(x))) {
    bad(`${what} is not a list of finite numbers`);
  }
  const a = v as number[];
  if (n !== undefined && a.length !== n) bad(`${what} has ${a.length} entries, expected ${n}`);
  return a;
}
