/**
 * Model JSON in and out. `JSON.stringify(model)` is the serialised form (key order fixed by construction, so
 * the same fit gives the same bytes); `parseGbdtModel` checks a value read back from disk — it may come from
 * a worker, so every index is bounds-checked and every tree must terminate — before `predictGbdt` trusts it.
 *
 * @module
 */
import { type GbdtModel, gbdtParams, type GbdtValidation, type TreeJson } from "./gbdt.ts";
import { finiteNumbers, modelHeader } from "./model_json.ts";

const bad = (why: string): never => {
  throw new TypeError(`Cannot read the GBDT model: ${why}`);
};

const numbers = (v: unknown, what: string, n?: number) => finiteNumbers(v, what, bad, n);

function tree(v: unknown, i: number, p: number): TreeJson {
  if (typeof v !== "object" || v === null) return bad(`tree ${i} is not an object`);
  const t = v as Record<string, unknown>;
  const feature = numbers(t.feature, `tree ${i} feature`);
  const n = feature.length;
  if (n === 0) bad(`tree ${i} has no nodes`);
  const out: TreeJson = {
    feature,
    threshold: numbers(t.threshold, `tree ${i} threshold`, n),
    missingLeft: numbers(t.missingLeft, `tree ${i} missingLeft`, n),
    left: numbers(t.left, `tree ${i} left`, n),
    right: numbers(t.right, `tree ${i} right`, n),
    value: numbers(t.value, `tree ${i} value`, n),
  };
  for (let j = 0; j < n; j++) {
    const f = feature[j]!;
    if (f < 0) continue;
    if (!Number.isInteger(f) || f >= p) bad(`tree ${i} node ${j} uses feature ${f} of ${p}`);
    // Children must point forward, so every path ends at a leaf.
    for (const c of [out.left[j]!, out.right[j]!]) {
      if (!Number.isInteger(c) || c <= j || c >= n) bad(`tree ${i} node ${j} has child ${c}`);
    }
  }
  return out;
}

/** Validates a parsed JSON value as a GBDT model. */
export function parseGbdtModel(v: unknown): GbdtModel {
  const { m, task, classes, features, k } = modelHeader(v, "arrow-gbdt/1", bad);
  const init = numbers(m.init, "init", k);
  if (!Array.isArray(m.trees)) bad("trees is not a list");
  const trees = (m.trees as unknown[]).map((t, i) => tree(t, i, features.length));
  if (trees.length % k !== 0) bad(`${trees.length} trees do not divide into ${k} outputs`);
  const params = gbdtParams(m.params as Record<string, number>);
  const model: GbdtModel = {
    format: "arrow-gbdt/1",
    task: task as GbdtModel["task"],
    classes,
    features,
    init,
    trees,
    params,
  };
  if (m.validation !== undefined) model.validation = validation(m.validation, trees.length / k);
  return model;
}

function validation(v: unknown, stages: number): GbdtValidation {
  if (typeof v !== "object" || v === null) return bad("validation is not an object");
  const o = v as Record<string, unknown>;
  const [rows, stagesRun, stagesUsed, loss] = numbers(
    [o.rows, o.stagesRun, o.stagesUsed, o.loss],
    "validation",
  );
  if (stagesUsed !== stages || stagesRun! < stagesUsed || !Number.isInteger(rows) || rows! < 1) {
    bad(`validation ${JSON.stringify(v)} does not match ${stages} stages of trees`);
  }
  return { rows: rows!, stagesRun: stagesRun!, stagesUsed: stagesUsed!, loss: loss! };
}
