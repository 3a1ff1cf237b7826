/**
 * Where the model errs, from dev rows only: a node's out-of-fold residuals (kept by the coordinator from its
 * recomputation, ensemble.ts) summarised by column — how much of the residuals' variance the column's levels
 * (or a numeric column's quantile bins, or its missingness) still explain, corrected for the levels' number
 * (ω²-like: a column with many levels explains some variance by chance alone). A column whose residuals
 * still vary with it is one the model has not used fully: the library ideator (with insights on) proposes
 * hypotheses on it first. Every row read here is a dev fold's validation row; nothing of held-out or test.
 *
 * @module
 */
import { cellValue, type Prediction, type Table, type Target } from "../../tabular/mod.ts";
import type { ColumnInfo } from "../types.ts";

export interface ColumnEvidence {
  column: string;
  /** Share of the residuals' variance the column's groups explain beyond chance, 0–1. */
  explained: number;
  /** Groups compared (levels, bins, or missing / present). */
  groups: number;
  /** The group with the largest mean residual (|mean|), for the LLM's prompt and the report. */
  worst: { group: string; mean: number; n: number } | null;
}

/**
 * Residual per row of a pooled out-of-fold prediction: y − ŷ (regression), y − p (binary), 1 − p(true class)
 * (multiclass: how far the true class's probability is from certainty).
 */
export function residuals(target: Target, rows: ArrayLike<number>, pred: Prediction): Float64Array {
  const out = new Float64Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const y = target.y[rows[i]!]!;
    out[i] = pred.k === 1 ? y - pred.values[i]! : 1 - pred.values[i * pred.k + y]!;
  }
  return out;
}

type Share = ColumnEvidence["worst"] & { explained: number; groups: number };

/** Group keys as codes in order of first appearance (−1: left out), and each code's key. */
interface Coded {
  codes: Int32Array;
  labels: string[];
}

function encode(groups: readonly (string | null)[]): Coded {
  const index = new Map<string, number>();
  const codes = new Int32Array(groups.length);
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i];
    if (g === null || g === undefined) {
      codes[i] = -1;
      continue;
    }
    let c = index.get(g);
    if (c === undefined) index.set(g, c = index.size);
    codes[i] = c;
  }
  return { codes, labels: [...index.keys()] };
}

/** ω²-like share of `r`'s variance explained by `groups` (group key per row; null rows are left out). */
export function explainedShare(r: ArrayLike<number>, groups: (string | null)[]): Share | null {
  return explainedCoded(r, encode(groups));
}

function explainedCoded(r: ArrayLike<number>, { codes, labels }: Coded): Share | null {
  const L = labels.length;
  const sums = new Float64Array(L), counts = new Float64Array(L);
  let total = 0, n = 0;
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i]!;
    if (c < 0) continue;
    sums[c] = sums[c]! + r[i]!;
    counts[c] = counts[c]! + 1;
    total += r[i]!;
    n += 1;
  }
  if (L < 2 || n <= L) return null;
  const mean = total / n;
  let sst = 0;
  for (let i = 0; i < codes.length; i++) if (codes[i]! >= 0) sst += (r[i]! - mean) ** 2;
  let ssb = 0, worst: { group: string; mean: number; n: number } | null = null;
  for (let c = 0; c < L; c++) {
    const m = sums[c]! / counts[c]!;
    ssb += counts[c]! * (m - mean) ** 2;
    if (counts[c]! >= 5 && (!worst || Math.abs(m) > Math.abs(worst.mean))) {
      worst = { group: labels[c]!, mean: m, n: counts[c]! };
    }
  }
  if (sst <= 0) return null;
  const msw = (sst - ssb) / (n - L);
  const explained = Math.max(0, (ssb - (L - 1) * msw) / (sst + msw));
  return { explained, groups: L, group: worst?.group ?? "", mean: worst?.mean ?? 0, n: worst?.n ?? 0 };
}

/** Quantile bin labels (5 bins, cut on the rows given) of a numeric column; null where missing. */
function bins(values: (number | null)[], k = 5): (string | null)[] {
  const present = values.filter((v): v is number => v !== null).sort((a, b) => a - b);
  if (present.length < k * 2) return values.map(() => null);
  const cuts = Array.from({ length: k - 1 }, (_, i) => present[Math.floor(((i + 1) * present.length) / k)]!);
  return values.map((v) => (v === null ? null : `q${cuts.filter((c) => v >= c).length}`));
}

/** Which rows, in which order: a summary of the same rows reuses their columns' groups. */
function rowsKey(rows: ArrayLike<number>): string {
  let h = 0;
  for (let i = 0; i < rows.length; i++) h = (Math.imul(h, 31) + rows[i]! + 1) | 0;
  return `${rows.length}:${h}`;
}

type Groups = { groups: Coded; missing: Coded };

/** A column's groups on `rows` (levels or quantile bins, and missing / present), kept per table and rows:
 * they depend on the data alone, not on the node summarised, and every parent is summarised on the same
 * dev rows. */
const groupsCache = new WeakMap<Table, Map<string, Groups>>();

function groupsOf(table: Table, col: Table["columns"][number], rows: ArrayLike<number>, key: string): Groups {
  const byTable = groupsCache.get(table) ?? new Map<string, Groups>();
  groupsCache.set(table, byTable);
  const k = `${col.name}\u0000${key}`;
  const hit = byTable.get(k);
  if (hit) return hit;
  const cells = Array.from(rows, (row) => cellValue(col, row));
  const missing = cells.map((v) => (v === null ? "missing" : "present"));
  const groups = col.kind === "numeric"
    ? bins(cells.map((v) => (typeof v === "number" ? v : null)))
    : cells.map((v) => (v === null ? null : String(v)));
  const out = { groups: encode(groups), missing: encode(missing) };
  if (byTable.size > 512) byTable.clear();
  byTable.set(k, out);
  return out;
}

/**
 * The residual summary of one node on `rows` (the dev folds' validation rows, in the order of `pred`):
 * per column, what its groups still explain, strongest first.
 */
export function residualSummary(
  table: Table,
  target: Target,
  columns: readonly ColumnInfo[],
  rows: ArrayLike<number>,
  pred: Prediction,
): ColumnEvidence[] {
  const r = residuals(target, rows, pred);
  const fingerprint = rowsKey(rows);
  const out: ColumnEvidence[] = [];
  for (const info of columns) {
    if (info.name === target.name) continue;
    const col = table.columns.find((c) => c.name === info.name);
    if (!col || col.kind === "text") continue;
    const { groups, missing } = groupsOf(table, col, rows, fingerprint);
    const a = explainedCoded(r, groups);
    const m = info.missing > 0 ? explainedCoded(r, missing) : null;
    const best = !a || (m && m.explained > a.explained) ? m : a;
    if (!best) continue;
    out.push({
      column: info.name,
      explained: best.explained,
      groups: best.groups,
      worst: best.n ? { group: best.group, mean: best.mean, n: best.n } : null,
    });
  }
  return out.sort((x, y) => y.explained - x.explained || (x.column < y.column ? -1 : 1));
}
