/**
 * Insights: what one evaluated node teaches, measured against its parent on the same dev folds (paired
 * per-fold deltas, so fold-to-fold noise cancels), and what a parent has learned from all its children.
 *
 * Outcome rule: with d̄ the mean and s the sample standard deviation of the k per-fold deltas (positive =
 * better under the metric's direction), a hypothesis **helped** when d̄ ≥ ACCEPT_EPS and d̄ ≥ t·s/√k,
 * **hurt** when d̄ ≤ −ACCEPT_EPS and −d̄ ≥ t·s/√k, and was **neutral** otherwise, with t Student's
 * two-sided LABEL_ALPHA quantile on k − 1 degrees of freedom (2.776 for 5 folds): a change with no effect
 * is labelled helped or hurt at most LABEL_ALPHA of the time (at one standard error it was about 19 %
 * "hurt" alone, and a "hurt" prunes the node and steers ideation away from its family); code that failed
 * is **failed** with its lesson. When both the node's and its parent's out-of-fold predictions were kept
 * (every node Arrow recomputed), the label is decided on their per-row losses paired over every dev row
 * instead (`classifyRows`: the same ACCEPT_EPS on the fold mean, and a two-sided LABEL_ALPHA z over rows):
 * far more evidence than five fold means, so a real gain of a fold's noise is seen rather than called
 * neutral.
 *
 * @module
 */
import { ACCEPT_EPS } from "../../thresholds.ts";
import { LABEL_ALPHA, type LossGain, normalQuantile, tQuantile } from "../gate/row_loss.ts";
import type {
  DevScore,
  Family,
  FamilyTally,
  Hypothesis,
  Insight,
  Outcome,
  TreeNode,
  TreeNodeId,
  TreeState,
} from "../types.ts";
import { helpedWhy, hurtWhy, neutralWhy } from "./families.ts";

/** Mean and sample standard deviation. */
export function meanStd(xs: readonly number[]): { mean: number; std: number } {
  const mean = xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
  const v = xs.length > 1 ? xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (xs.length - 1) : 0;
  return { mean, std: Math.sqrt(v) };
}

/** Per-fold deltas of `node` over `parent`, positive when better. */
export function pairedDelta(node: DevScore, parent: DevScore, sign: 1 | -1): DevScore {
  const folds = node.folds.map((x, i) => sign * (x - (parent.folds[i] ?? x)));
  return { ...meanStd(folds), folds };
}

/** The outcome of paired fold deltas; `t` (standard errors needed) defaults to the label's t quantile. */
export function classify(d: DevScore, t = tQuantile(d.folds.length - 1)): Outcome {
  const se = d.std / Math.sqrt(Math.max(1, d.folds.length));
  if (d.mean >= ACCEPT_EPS && d.mean >= t * se) return "helped";
  if (d.mean <= -ACCEPT_EPS && -d.mean >= t * se) return "hurt";
  return "neutral";
}

export function whyOf(family: Family, outcome: Outcome, lesson: string | null): string {
  if (outcome === "failed") return lesson ?? "the code failed";
  if (outcome === "helped") return helpedWhy(family);
  if (outcome === "hurt") return hurtWhy(family);
  return neutralWhy(family) ?? "the effect is within the folds' noise";
}

const signed = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(4)}`;

/**
 * The outcome of a node measured against its parent row by row (`rows`: their pooled out-of-fold per-row
 * losses, paired on every dev row) with the fold deltas `d` beside it: **helped** when the fold deltas gain
 * ACCEPT_EPS on average and the per-row z reaches the two-sided LABEL_ALPHA normal quantile, **hurt** the
 * mirror image, **neutral** otherwise. Hundreds of rows weigh a change far more finely than five fold means
 * (where a real gain of a fold's noise is labelled neutral more often than not).
 */
export function classifyRows(d: DevScore, rows: LossGain): Outcome {
  const q = normalQuantile(1 - LABEL_ALPHA / 2);
  if (d.mean >= ACCEPT_EPS && rows.z >= q) return "helped";
  if (d.mean <= -ACCEPT_EPS && rows.z <= -q) return "hurt";
  return "neutral";
}

/** The insight of an evaluated node with a hypothesis, against its parent's dev folds — and its rows, when
 * both nodes' out-of-fold predictions were kept (`rows`). */
export function insightOf(
  h: Hypothesis,
  dev: DevScore,
  parent: DevScore,
  sign: 1 | -1,
  metric: string,
  rows?: LossGain,
): Insight {
  const delta = pairedDelta(dev, parent, sign);
  const outcome = rows ? classifyRows(delta, rows) : classify(delta);
  const why = rows && outcome === "neutral" && !neutralWhy(h.family)
    ? "the effect is within the rows' noise"
    : whyOf(h.family, outcome, null);
  const perRow = rows ? `, per-row ${rows.loss} z ${rows.z.toFixed(2)} over ${rows.n} rows` : "";
  const sentence = `${h.text} — ${outcome}: dev ${metric} ${signed(delta.mean)} ± ${
    delta.std.toFixed(4)
  } over ${delta.folds.length} folds${perRow}, because ${why}.`;
  return { family: h.family, columns: h.columns, outcome, delta, ...(rows ? { rows } : {}), why, sentence };
}

/** The insight of a node whose code or executor failed. */
export function failedInsight(h: Hypothesis, lesson: string): Insight {
  const short = lesson.length > 300 ? lesson.slice(0, 300) + "…" : lesson;
  return {
    family: h.family,
    columns: h.columns,
    outcome: "failed",
    delta: null,
    why: short,
    sentence: `${h.text} — failed: ${short}`,
  };
}

const OUTCOMES: readonly Outcome[] = ["helped", "hurt", "neutral", "failed"];

export function addToTally(t: FamilyTally, family: Family, outcome: Outcome): FamilyTally {
  const row = t[family] ?? { helped: 0, hurt: 0, neutral: 0, failed: 0 };
  return { ...t, [family]: { ...row, [outcome]: row[outcome] + 1 } };
}

/** One sentence of what a parent's children taught, families in a fixed order. */
export function summarizeTally(t: FamilyTally): string {
  const parts = (Object.keys(t) as Family[]).sort().map((f) => {
    const row = t[f]!;
    return `${f} ${OUTCOMES.filter((o) => row[o] > 0).map((o) => `${o} ${row[o]}`).join(", ")}`;
  });
  return parts.length ? `Children so far: ${parts.join("; ")}.` : "";
}

/** What ideation under `parent` may learn from: the insights of every child of the parent and of each of
 * its ancestors (each ancestor aggregates its own children). */
export function branchInsights(
  nodes: Record<string, TreeNode>,
  parent: string,
): { key: string; insight: Insight }[] {
  const out: { key: string; insight: Insight }[] = [];
  for (let at: TreeNode | undefined = nodes[parent]; at; at = at.parent ? nodes[at.parent] : undefined) {
    for (const c of at.children) {
      const n = nodes[c];
      if (n?.insight && n.hypothesis) out.push({ key: n.hypothesis.key, insight: n.insight });
    }
  }
  return out;
}

/** What the tree has measured of one family: its effect on dev (oriented, + = better) with its uncertainty. */
export interface FamilyEffect {
  family: Family;
  /** Measured nodes of the family (failed ones carry no delta and are not counted). */
  n: number;
  /** Mean paired dev delta of those nodes over their parents, and its standard error. */
  mean: number;
  se: number;
  /** The estimate shrunk toward no effect (normal prior with the start's fold spread as its scale), and
   * its posterior standard deviation: small evidence moves it little, and its uncertainty shrinks with
   * every measurement. */
  shrunk: number;
  sd: number;
}

/**
 * Per family, the effect estimate of everything measured in the tree (every branch: a feature step's effect
 * mostly carries over from one artifact to another). Each node contributes its mean paired fold delta with
 * standard error std/√k (at least a quarter of the scale, so identical fold patterns do not claim certainty);
 * the family's standard error is the larger of the pooled one and the nodes' spread. `scale` is the prior's
 * standard deviation: an effect as large as the start's fold spread is plausible, much larger is not.
 */
export function familyEffects(nodes: Record<string, TreeNode>, scale: number): Map<Family, FamilyEffect> {
  const by = new Map<Family, { m: number; se: number }[]>();
  for (const n of Object.values(nodes)) {
    const d = n.insight?.delta;
    if (!n.insight || !d || n.insight.outcome === "failed") continue;
    const se = Math.max(d.std / Math.sqrt(Math.max(1, d.folds.length)), scale / 4);
    by.set(n.insight.family, [...(by.get(n.insight.family) ?? []), { m: d.mean, se }]);
  }
  const out = new Map<Family, FamilyEffect>();
  for (const [family, xs] of [...by].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const k = xs.length;
    const { mean, std } = meanStd(xs.map((x) => x.m));
    const pooled = Math.sqrt(xs.reduce((t, x) => t + x.se ** 2, 0)) / k;
    const se = Math.max(pooled, std / Math.sqrt(k));
    const w = scale ** 2 / (scale ** 2 + se ** 2);
    out.set(family, { family, n: k, mean, se, shrunk: w * mean, sd: Math.sqrt(w) * se });
  }
  return out;
}

/** What the screens measured of a family, a column or one hypothesis, in standard errors (z). */
export interface ScreenEffect {
  n: number;
  /** Mean z shrunk toward none (each screen's z ~ N(μ, 1), prior μ ~ N(0, 1)): k·z̄ / (k + 1). */
  shrunk: number;
  /** Its posterior standard deviation, 1/√(k + 1): it shrinks with every screen. */
  sd: number;
  /** How far the members' own effects differ (τ², in z² units): their z's variance beyond the unit noise,
   * at least SPREAD_FLOOR; 1 when fewer than two say nothing of it (`towardFamily`). */
  spread: number;
}

/** A comparison's z bounded to ±6 before it is pooled or ranked: one extreme row set must not carry a pool. */
export const boundedZ = (z: number) => Math.max(-6, Math.min(6, z));

/** The least spread a family's members are credited with: they are never taken for one change measured
 * again (a quarter of the unit noise, so a member's own z keeps a fifth of its weight, `towardFamily`). */
export const SPREAD_FLOOR = 0.25;

/** Comparisons' z pooled toward no effect (each z ~ N(μ, 1), prior μ ~ N(0, 1)): k·z̄ / (k + 1) ± 1/√(k + 1),
 * and how far their own effects differ (τ² = their variance − 1, at least SPREAD_FLOOR; 1 below two). */
export function pooledZ(zs: readonly number[]): ScreenEffect {
  const k = zs.length;
  const sum = zs.reduce((t, z) => t + z, 0);
  let spread = 1;
  if (k >= 2) {
    const m = sum / k;
    spread = Math.max(SPREAD_FLOOR, zs.reduce((t, z) => t + (z - m) ** 2, 0) / (k - 1) - 1);
  }
  return { n: k, shrunk: sum / (k + 1), sd: 1 / Math.sqrt(k + 1), spread };
}

/**
 * One comparison's z shrunk toward what other members of its family showed (empirical Bayes, normal–normal:
 * its z ~ N(μ, 1), the family's μ ~ N(pooled, τ²) with τ² the others' `spread`), so the family's record
 * moves it as far as the family agrees with itself: a lucky z of a family whose members all fail is pulled
 * down most of the way, while a family whose members differ (a model switch that helps from a weak GBDT
 * and not from a linear parent, group statistics of a useful column and of a useless one) lends a member
 * little of the others' evidence, up or down. Nothing measured: halfway toward none (τ² = 1).
 */
export function towardFamily(z: number, family: Pick<ScreenEffect, "shrunk" | "spread"> | undefined): number {
  const spread = family?.spread ?? 1;
  const w = spread / (spread + 1);
  return w * z + (1 - w) * (family?.shrunk ?? 0);
}

/**
 * Every screen's evidence in the tree (execute/screen.ts: each candidate's per-row loss z against its parent
 * on the screen's dev rows), pooled by family, by column (feature steps only) and by hypothesis key: the
 * effect of a change measured many times over, cheaply, where full measurements come two a cycle. A z is
 * already on the scale of its own noise, so screens of different parents and datasets pool as they are.
 */
export function screenEffects(nodes: Record<string, TreeNode>): {
  family: Map<Family, ScreenEffect>;
  column: Map<string, ScreenEffect>;
  key: Map<string, ScreenEffect>;
} {
  const by = { family: new Map<Family, number[]>(), column: new Map<string, number[]>(), key: new Map() };
  const add = <K>(m: Map<K, number[]>, k: K, z: number) => m.set(k, [...(m.get(k) ?? []), z]);
  for (const n of Object.values(nodes)) {
    for (const c of n.screened ?? []) {
      if (!c.gain || !Number.isFinite(c.gain.z)) continue;
      const z = boundedZ(c.gain.z);
      add(by.family, c.family, z);
      add(by.key as Map<string, number[]>, c.key, z);
      for (const col of c.columns) add(by.column, col, z);
    }
  }
  const pool = <K>(m: Map<K, number[]>) => new Map([...m].map(([k, zs]) => [k, pooledZ(zs)]));
  return { family: pool(by.family), column: pool(by.column), key: pool(by.key as Map<string, number[]>) };
}

/**
 * What insights make of each measured node's own effect: its per-row z over its parent, shrunk toward what
 * the other measured nodes of its family showed across the tree (`towardFamily` of their pooled z's, so a
 * node never lends itself evidence). Failed nodes and nodes without a row comparison add nothing and get
 * nothing.
 */
export function ownEffects(s: Pick<TreeState, "nodes" | "order">): Map<TreeNodeId, number> {
  const by = new Map<string, { id: TreeNodeId; z: number }[]>();
  for (const id of s.order) {
    const i = s.nodes[id]!.insight;
    if (!i?.rows || i.outcome === "failed" || !Number.isFinite(i.rows.z)) continue;
    by.set(i.family, [...(by.get(i.family) ?? []), { id, z: boundedZ(i.rows.z) }]);
  }
  const out = new Map<TreeNodeId, number>();
  for (const members of by.values()) {
    for (const { id, z } of members) {
      out.set(id, towardFamily(z, pooledZ(members.filter((o) => o.id !== id).map((o) => o.z))));
    }
  }
  return out;
}
