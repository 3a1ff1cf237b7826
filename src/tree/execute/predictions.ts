/**
 * Predictions printed by a sandboxed child, read as untrusted data (bounded, every number checked) and
 * scored here, in the coordinator, against labels the child never had: its printed score would be only a
 * claim, its predictions are a measurement.
 *
 * @module
 */
import { parseBounded } from "../../runtime/bounded_json.ts";
import type { ExecResult } from "../types.ts";
import {
  type MetricName,
  outputsOf,
  type Prediction,
  type Rows,
  score,
  type Target,
} from "../../tabular/mod.ts";

const LIMITS = { maxBytes: 64 << 20, maxDepth: 4 } as const;

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

function values(v: unknown, n: number, k: number, what: string): Parsed<Float64Array> {
  if (!Array.isArray(v) || v.length !== n * k) {
    return {
      ok: false,
      problem: `${what} holds ${Array.isArray(v) ? v.length : "no"} values for ${n} rows × ${k}`,
    };
  }
  const out = new Float64Array(v.length);
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (typeof x !== "number" || !Number.isFinite(x)) {
      return { ok: false, problem: `${what} holds a non-number` };
    }
    out[i] = x;
  }
  return { ok: true, value: out };
}

function object(text: string): Parsed<Record<string, unknown>> {
  const r = parseBounded(text, LIMITS);
  if (!r.ok) return { ok: false, problem: r.error };
  const o = r.value;
  if (typeof o !== "object" || o === null || Array.isArray(o)) {
    return { ok: false, problem: "its result is not an object" };
  }
  const rec = o as Record<string, unknown>;
  if (typeof rec.error === "string") {
    return { ok: false, problem: `its code failed: ${rec.error.slice(0, 500)}` };
  }
  return { ok: true, value: rec };
}

/** Reads a prediction payload `{k, values}` for `n` rows (checked, not scored). */
export function readPrediction(text: string, target: Target, n: number): Parsed<Prediction> {
  const o = object(text);
  if (!o.ok) return o;
  const k = outputsOf(target.task, target.classes);
  if (o.value.k !== k) {
    return { ok: false, problem: `it predicted ${String(o.value.k)} outputs per row, not ${k}` };
  }
  const v = values(o.value.values, n, k, "its prediction");
  if (!v.ok) return v;
  return { ok: true, value: { task: target.task, k, values: v.value } };
}

/** Scores a prediction payload `{k, values}` for `rows` of the coordinator's table. */
export function scorePrediction(
  text: string,
  target: Target,
  rows: Rows,
  metric: MetricName,
): Parsed<number> {
  const p = readPrediction(text, target, rows.length);
  if (!p.ok) return p;
  return { ok: true, value: scoreRows(metric, target, rows, p.value) };
}

/** The labels of `rows` as the metrics take them. */
export function labelsOf(target: Target, rows: Rows): Float64Array {
  return Float64Array.from(rows, (r) => target.y[r]!);
}

/** What a recomputation measured: each fold's score, and the columns' permutation importances (absent when
 * its payload held none). */
export interface FoldsScored {
  scores: number[];
  /** The predictions scored, one per fold. */
  preds: Prediction[];
  importance: Record<string, number> | null;
}

/** Most importances kept of one recomputation, and the longest column name kept. */
const MAX_IMPORTANCES = 64;
const MAX_NAME = 200;

/** The `importance` object of a payload: column name → finite number, bounded; null when absent or unusable. */
function importanceOf(v: unknown): Record<string, number> | null {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return null;
  const out: Record<string, number> = {};
  let n = 0;
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (n >= MAX_IMPORTANCES) break;
    if (typeof x !== "number" || !Number.isFinite(x) || k.length > MAX_NAME) continue;
    out[k] = x;
    n++;
  }
  return n ? out : null;
}

/** Reads a payload's per-fold predictions `{k, folds: [values per fold]}` for folds of `foldSizes` rows. */
export function readFolds(
  text: string,
  target: Target,
  foldSizes: readonly number[],
): Parsed<{ preds: Prediction[]; payload: Record<string, unknown> }> {
  const o = object(text);
  if (!o.ok) return o;
  const k = outputsOf(target.task, target.classes);
  const f = o.value.folds;
  if (o.value.k !== k || !Array.isArray(f) || f.length !== foldSizes.length) {
    return {
      ok: false,
      problem: `its result does not hold ${foldSizes.length} folds of ${k}-output predictions`,
    };
  }
  const preds: Prediction[] = [];
  for (let i = 0; i < foldSizes.length; i++) {
    const v = values(f[i], foldSizes[i]!, k, `fold ${i + 1}`);
    if (!v.ok) return v;
    preds.push({ task: target.task, k, values: v.value });
  }
  return { ok: true, value: { preds, payload: o.value } };
}

/** Scores a recomputation payload `{k, folds: [values per fold], importance?}` fold by fold. */
export function scoreFolds(
  text: string,
  target: Target,
  folds: Rows[],
  metric: MetricName,
): Parsed<FoldsScored> {
  const r = readFolds(text, target, folds.map((f) => f.length));
  if (!r.ok) return r;
  const scores = r.value.preds.map((p, i) => scoreRows(metric, target, folds[i]!, p));
  return {
    ok: true,
    value: { scores, preds: r.value.preds, importance: importanceOf(r.value.payload.importance) },
  };
}

function scoreRows(metric: MetricName, target: Target, rows: Rows, pred: Prediction): number {
  return score(metric, labelsOf(target, rows), pred);
}

/** An executor's result before anything is observed: the fields each way of measuring a node fills in. */
export function unobserved(node: string, attempt: number, exit: number | null): ExecResult {
  return {
    node,
    attempt,
    exit,
    signal: null,
    stderr_tail: [],
    hung: null,
    over_budget: null,
    escapes: [],
    lesson: null,
    claim: null,
    observed_best: null,
    artifact_changed: false,
    recomputed: null,
  };
}
