/**
 * Ensembles of already-evaluated nodes (hypothesis family `ensemble`). Every node Arrow recomputed leaves
 * its out-of-fold predictions on the dev folds in the run's private `.arrow/oof/` (written by the
 * coordinator from the recomputation it scored, never shown to a child); an ensemble is chosen on those
 * alone — greedy forward selection with replacement (Caruana et al.) on the pooled out-of-fold rows — so no
 * held-out or test row shapes it. Its "execution" is the coordinator's: the members' fold predictions
 * averaged with the chosen weights and scored per fold against dev labels, exactly as a recomputation is.
 * The merge gate, the final test and the refit treat it member by member (each member's artifact predicts,
 * the coordinator averages), so it is gated like any other node.
 *
 * @module
 */
import { type MetricName, METRICS, outputsOf, type Prediction, score, type Target } from "../tabular/mod.ts";
import type { TreeData } from "./data.ts";
import { unobserved } from "./execute/predictions.ts";
import { type ColumnEvidence, residualSummary } from "./ideate/evidence.ts";
import { lossFor, type LossGain, type LossName, pairedLoss, roundedGain } from "./gate/row_loss.ts";
import type { EnsembleMember, ExecResult, Hypothesis, TreeNode, TreeState } from "./types.ts";

/** Most distinct candidates an ensemble is chosen from (the best on dev), and most selection rounds. */
export const ENSEMBLE_POOL = 8;
export const ENSEMBLE_ROUNDS = 12;

export const oofPath = (runDir: string, node: string) => `${runDir}/.arrow/oof/${node}.json`;

/** Keeps node `node`'s out-of-fold dev predictions (the recomputation's payload `{k, folds}`, as scored;
 * `preds`, what it was parsed into, are what `readOof` gives back while the file stays as written). */
export function keepOof(runDir: string, node: string, payload: string, preds?: Prediction[]): void {
  Deno.mkdirSync(`${runDir}/.arrow/oof`, { recursive: true });
  const path = oofPath(runDir, node);
  Deno.writeTextFileSync(`${path}.tmp`, payload);
  Deno.renameSync(`${path}.tmp`, path);
  if (preds) remember(path, stampOf(Deno.statSync(path), preds.map((p) => p.values.length / p.k)), preds);
}

/** What a kept file's parse is cached under: the file as it is on disk, and the fold sizes it was read for. */
const stampOf = (st: Deno.FileInfo, foldSizes: readonly number[]) =>
  `${st.size}:${st.mtime?.getTime() ?? ""}:${foldSizes.join(",")}`;

function remember(path: string, stamp: string, preds: Prediction[] | null): void {
  if (cache.size > 256) cache.clear();
  cache.set(path, { stamp, preds });
}

/** Node `node`'s kept out-of-fold predictions, one Prediction per dev fold (null when not kept or unreadable). */
export function readOof(
  runDir: string,
  node: string,
  target: Target,
  foldSizes: number[],
): Prediction[] | null {
  const path = oofPath(runDir, node);
  let stamp: string;
  try {
    stamp = stampOf(Deno.statSync(path), foldSizes);
  } catch {
    return null;
  }
  const hit = cache.get(path);
  if (hit?.stamp === stamp) return hit.preds;
  const preds = parseOof(path, target, foldSizes);
  remember(path, stamp, preds);
  return preds;
}

/** Parsed kept predictions by file, while the file stays as it was (a cycle reads each several times). */
const cache = new Map<string, { stamp: string; preds: Prediction[] | null }>();

function parseOof(path: string, target: Target, foldSizes: number[]): Prediction[] | null {
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch {
    return null;
  }
  let o: { k?: unknown; folds?: unknown };
  try {
    o = JSON.parse(text);
  } catch {
    return null;
  }
  // Written by this coordinator from a payload it already checked (predictions.ts); checked again here,
  // without a second parse, since the file sits on disk between cycles.
  const k = outputsOf(target.task, target.classes);
  if (o.k !== k || !Array.isArray(o.folds) || o.folds.length !== foldSizes.length) return null;
  const out: Prediction[] = [];
  for (let i = 0; i < foldSizes.length; i++) {
    const v = o.folds[i];
    if (!Array.isArray(v) || v.length !== foldSizes[i]! * k) return null;
    const values = new Float64Array(v.length);
    for (let j = 0; j < v.length; j++) {
      const x = v[j];
      if (typeof x !== "number" || !Number.isFinite(x)) return null;
      values[j] = x;
    }
    out.push({ task: target.task, k, values });
  }
  return out;
}

/** The weighted average of predictions of the same rows (weights summing to 1). */
export function blend(preds: readonly Prediction[], weights: readonly number[]): Prediction {
  const first = preds[0]!;
  const values = new Float64Array(first.values.length);
  preds.forEach((p, m) => {
    const w = weights[m]!;
    for (let i = 0; i < values.length; i++) values[i] = values[i]! + w * p.values[i]!;
  });
  return { task: first.task, k: first.k, values };
}

/** Concatenates per-fold predictions into one pooled prediction (fold order). */
export function pooled(folds: readonly Prediction[]): Prediction {
  const n = folds.reduce((t, f) => t + f.values.length, 0);
  const values = new Float64Array(n);
  let at = 0;
  for (const f of folds) {
    values.set(f.values, at);
    at += f.values.length;
  }
  return { task: folds[0]!.task, k: folds[0]!.k, values };
}

/**
 * Candidates as a log-loss sees them: a multiclass row's loss reads only its true class's probability, so a
 * selection under log-loss works on that column alone (one output, every label 1) — k times less to blend
 * and score, and the same numbers to the last bit (each blended entry is computed alike either way, and
 * the loss reads the same entry). Other losses and single-output predictions are given back as they are.
 */
export function lossView<T extends { oof: Prediction }>(
  cands: readonly T[],
  y: Float64Array,
  loss: LossName,
): { cands: T[]; y: Float64Array } {
  const k = cands[0]?.oof.k ?? 1;
  if (loss !== "logloss" || k === 1) return { cands: [...cands], y };
  const n = y.length;
  const view = (p: Prediction): Prediction => ({
    task: "binary",
    k: 1,
    values: Float64Array.from({ length: n }, (_, i) => p.values[i * k + y[i]!]!),
  });
  return { cands: cands.map((c) => ({ ...c, oof: view(c.oof) })), y: new Float64Array(n).fill(1) };
}

/**
 * What selection optimises: the continuous, row-additive form of the run's metric — log-loss for any class
 * metric (a proper score; AUC and accuracy move in steps and AUC costs a sort per try), squared error for R²
 * and RMSE, absolute error for MAE. The ensemble's dev score is then measured in the run's own metric.
 */
export function selectionMetric(metric: MetricName): MetricName {
  if (metric === "mae") return "mae";
  if (metric === "r2" || metric === "rmse") return "rmse";
  return "logloss";
}

/**
 * Greedy forward selection with replacement on pooled out-of-fold predictions: start from the best single
 * candidate, then add (again, possibly) whichever candidate improves the blend most, for at most `rounds`
 * additions, stopping when none improves it. Weights are counts / total. Deterministic (ties go to the
 * earlier candidate). Returns null with fewer than two distinct members chosen.
 */
export function caruana(
  candidates: readonly { id: string; oof: Prediction }[],
  y: ArrayLike<number>,
  metric: MetricName,
  rounds = ENSEMBLE_ROUNDS,
): { members: EnsembleMember[]; score: number } | null {
  if (candidates.length < 2) return null;
  const sign = METRICS[metric].direction === "higher" ? 1 : -1;
  const at = (p: Prediction) => {
    const v = score(metric, y, p);
    return Number.isFinite(v) ? sign * v : -Infinity;
  };
  const counts = new Array<number>(candidates.length).fill(0);
  let best = -Infinity, first = 0;
  candidates.forEach((c, i) => {
    const v = at(c.oof);
    if (v > best) (best = v), (first = i);
  });
  counts[first] = 1;
  const sum = Float64Array.from(candidates[first]!.oof.values);
  const { task, k } = candidates[first]!.oof;
  for (let r = 1; r < rounds; r++) {
    const total = r + 1;
    let pick = -1, pickScore = best;
    for (let i = 0; i < candidates.length; i++) {
      const v = candidates[i]!.oof.values;
      const values = new Float64Array(sum.length);
      for (let j = 0; j < sum.length; j++) values[j] = (sum[j]! + v[j]!) / total;
      const s = at({ task, k, values });
      if (s > pickScore + 1e-12) (pick = i), (pickScore = s);
    }
    if (pick < 0) break;
    counts[pick]! += 1;
    const v = candidates[pick]!.oof.values;
    for (let j = 0; j < sum.length; j++) sum[j] = sum[j]! + v[j]!;
    best = pickScore;
  }
  const members = membersOf(candidates, counts);
  return members ? { members, score: sign * best } : null;
}

/**
 * The members of a selection with replacement: each picked candidate weighted by its count over the total,
 * rounded for the record (the last takes the rest, so they sum to 1 exactly); null with fewer than two.
 */
export function membersOf(
  candidates: readonly { id: string }[],
  counts: readonly number[],
): EnsembleMember[] | null {
  const total = counts.reduce((t, c) => t + c, 0);
  const members = candidates.flatMap((c, i) =>
    counts[i] ? [{ node: c.id, weight: Number((counts[i]! / total).toFixed(6)) }] : []
  );
  if (members.length < 2) return null;
  const rest = 1 - members.slice(0, -1).reduce((t, m) => t + m.weight, 0);
  members[members.length - 1]!.weight = Number(rest.toFixed(6));
  return members;
}

/** Nodes an ensemble may be made of: measured on dev, not failed, not ensembles themselves. */
function candidatesOf(s: TreeState): TreeNode[] {
  const sign = s.config.direction === "maximize" ? 1 : -1;
  return s.order.map((id) => s.nodes[id]!)
    .filter((n) => n.dev && !n.artifact.members && n.status !== "failed-informative")
    .sort((a, b) => sign * (b.dev!.mean - a.dev!.mean) || (a.id < b.id ? -1 : 1))
    .slice(0, ENSEMBLE_POOL);
}

export const ensembleKey = (members: readonly EnsembleMember[]) =>
  `ensemble:${members.map((m) => `${m.node}*${m.weight}`).join("+")}`;

/**
 * An ensemble hypothesis over the run's evaluated nodes, chosen on their kept out-of-fold dev predictions,
 * or null (fewer than two usable candidates, one member chosen, or the same ensemble already in the tree).
 */
export function ensembleHypothesis(runDir: string, s: TreeState, data: TreeData): Hypothesis | null {
  const { target, splits } = data.task;
  const sizes = splits.folds.map((f) => f.valid.length);
  const cands = candidatesOf(s).flatMap((n) => {
    const oof = readOof(runDir, n.id, target, sizes);
    return oof ? [{ id: n.id, oof: pooled(oof) }] : [];
  });
  const y = Float64Array.from(splits.folds.flatMap((f) => Array.from(f.valid, (r) => target.y[r]!)));
  const by = selectionMetric(s.config.metric);
  const view = lossView(cands, y, lossFor(by));
  const chosen = caruana(view.cands, view.y, by);
  if (!chosen) return null;
  const key = ensembleKey(chosen.members);
  if (s.order.some((id) => s.nodes[id]!.hypothesis?.key === key)) return null;
  return {
    key,
    family: "ensemble",
    columns: [],
    params: { members: chosen.members.map((m) => `${m.node}*${m.weight}`).join("+") },
    text: `Average the predictions of ${
      chosen.members.map((m) => `${m.node} (weight ${m.weight.toFixed(2)})`).join(", ")
    }, chosen by greedy forward selection on their out-of-fold dev predictions.`,
    step: null,
    model: {},
    members: chosen.members,
    source: "library",
    tokens: 0,
  };
}

/**
 * The ensemble node `id`'s measurement, made here: its members' kept fold predictions averaged and scored
 * per dev fold (what a recomputation yields), or a failure naming the member whose predictions are gone.
 */
export function ensembleExec(runDir: string, s: TreeState, id: string, data: TreeData): ExecResult {
  const n = s.nodes[id]!;
  const { target, splits, metric } = data.task;
  const base = unobserved(id, n.attempt, 0);
  const sizes = splits.folds.map((f) => f.valid.length);
  const members = n.artifact.members ?? [];
  const oofs = members.map((m) => readOof(runDir, m.node, target, sizes));
  const lost = members.find((_, i) => !oofs[i]);
  if (lost || !members.length) {
    return {
      ...base,
      exit: 3,
      lesson: `the out-of-fold predictions of member ${lost?.node ?? "(none)"} are gone`,
    };
  }
  const weights = members.map((m) => m.weight);
  const preds = splits.folds.map((_, i) => blend(oofs.map((o) => o![i]!), weights));
  const folds = splits.folds.map((f, i) =>
    score(metric, Float64Array.from(f.valid, (r) => target.y[r]!), preds[i]!)
  );
  const mean = folds.reduce((t, x) => t + x, 0) / folds.length;
  return {
    ...base,
    claim: { score: mean, problem: null },
    recomputed: { folds, ...rowComparisons(runDir, s, data, id, preds) },
  };
}

/** Where node `node` errs: its kept out-of-fold residuals summarised by column (dev rows only), or null. */
export function parentEvidence(
  runDir: string,
  s: TreeState,
  data: TreeData,
  node: string,
): ColumnEvidence[] | null {
  const { target, splits } = data.task;
  const oof = readOof(runDir, node, target, splits.folds.map((f) => f.valid.length));
  if (!oof) return null;
  // The same kept predictions (readOof gives back the same object while the file stays as it was) of the
  // same table summarise the same: a parent expanded again is not summarised again.
  const columns = JSON.stringify(s.dataset.columns);
  const hit = evidenceOf.get(oof);
  if (hit && hit.table === data.table && hit.columns === columns) return hit.value;
  const rows = Int32Array.from(splits.folds.flatMap((f) => Array.from(f.valid)));
  const value = residualSummary(data.table, target, s.dataset.columns, rows, pooled(oof));
  evidenceOf.set(oof, { table: data.table, columns, value });
  return value;
}

const evidenceOf = new WeakMap<Prediction[], { table: unknown; columns: string; value: ColumnEvidence[] }>();

/** The dev labels in pooled fold order (what `pooled` concatenates). */
export function pooledLabels(data: TreeData): Float64Array {
  const { target, splits } = data.task;
  return Float64Array.from(splits.folds.flatMap((f) => Array.from(f.valid, (r) => target.y[r]!)));
}

export const sizesOf = (data: TreeData) => data.task.splits.folds.map((f) => f.valid.length);

/**
 * Per-fold predictions `folds` of a node against node `against`'s kept out-of-fold predictions (by default
 * the start's), paired per dev row; null when those are not kept.
 */
export function vsStart(
  runDir: string,
  s: TreeState,
  data: TreeData,
  folds: Prediction[],
  against: string | null | undefined = s.order[0],
): LossGain | null {
  if (!against) return null;
  const ref = readOof(runDir, against, data.task.target, sizesOf(data));
  if (!ref) return null;
  return roundedGain(pairedLoss(s.config.metric, pooledLabels(data), pooled(folds), pooled(ref)));
}

/** A node's per-fold predictions against the start's and against its parent's (each when kept). */
export function rowComparisons(
  runDir: string,
  s: TreeState,
  data: TreeData,
  id: string,
  folds: Prediction[],
): { vs_start?: LossGain; vs_parent?: LossGain } {
  const root = s.order[0];
  if (id === root) return {};
  const parent = s.nodes[id]?.parent;
  const start = vsStart(runDir, s, data, folds, root);
  const up = parent === root ? start : vsStart(runDir, s, data, folds, parent);
  return { ...(start ? { vs_start: start } : {}), ...(up ? { vs_parent: up } : {}) };
}
