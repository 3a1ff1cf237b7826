/**
 * How the tree's insights rank the library's ideas: the branch's own outcomes (a hypothesis tried and not
 * helped is not retried, a family that hurt or failed twice is dropped), each family's measured effect with
 * its uncertainty (insight.ts familyEffects), what other branches measured of the same hypothesis, and where
 * the parent errs (evidence.ts).
 *
 * @module
 */
import { branchInsights, familyEffects, screenEffects } from "./insight.ts";
import type { ColumnEvidence } from "./evidence.ts";
import type { ArtifactModel, ColumnInfo, Family, TreeNode, TreeState } from "../types.ts";
import { FAMILY_NAMES, onResiduals } from "./families.ts";

/** One candidate of the library, before it is ranked. */
export interface Idea {
  family: Family;
  columns: string[];
  params: Record<string, number | string>;
  text: string;
  model: ArtifactModel;
  prior: number;
}

/** The node and its ancestors, nearest first. */
export function pathOf(s: TreeState, parent: TreeNode): TreeNode[] {
  const out: TreeNode[] = [];
  for (let at: TreeNode | undefined = parent; at; at = at.parent ? s.nodes[at.parent] : undefined) {
    out.push(at);
  }
  return out;
}

function similar(a: Idea, cols: string[], info: Map<string, ColumnInfo>): boolean {
  if (a.columns.some((c) => cols.includes(c))) return true;
  const kinds = new Set(cols.map((c) => info.get(c)?.kind));
  return a.columns.some((c) => kinds.has(info.get(c)?.kind));
}

/** What was measured off this branch: children of nodes that are not the parent or its ancestors. */
function offBranch(s: TreeState, parent: TreeNode): { key: string; family: Family; outcome: string }[] {
  const branch = new Set(pathOf(s, parent).map((n) => n.id));
  return s.order.flatMap((id) => {
    const n = s.nodes[id]!;
    if (!n.insight || !n.hypothesis || n.parent === null || branch.has(n.parent)) return [];
    return [{ key: n.hypothesis.key, family: n.insight.family, outcome: n.insight.outcome }];
  });
}

/**
 * Scores of the candidates under what the tree learned; −Infinity means "do not propose". The branch's own
 * insights weigh most (a family that hurt twice here is dropped, one that helped is extended to similar
 * columns). What other branches measured counts too, since a feature step's effect mostly carries over from
 * one artifact to the next: a hypothesis that helped elsewhere is worth trying here, one that did not is
 * worth less than one never measured (it would mostly repeat an experiment), and a family that keeps showing
 * nothing anywhere gives way to families not yet tried.
 */
/** Feature families that act on a column the parent's residuals still vary with (drop_column does not). */
const ON_RESIDUALS = new Set<Family>(FAMILY_NAMES.filter(onResiduals));

/** Residual share at which a column's evidence counts in full (typical shares are 0.5–5 %), and the most
 * it adds to an idea's score (it orders feature steps; it does not outrank a model-family move). */
export const EVIDENCE_FULL = 0.03;
export const EVIDENCE_BONUS = 0.2;

/** The bonus an idea gets from where its parent errs: up to EVIDENCE_BONUS for a feature step on the column whose
 * groups still explain the most of the parent's out-of-fold residuals (evidence.ts). */
export function evidenceBonus(i: Idea, evidence: readonly ColumnEvidence[] | null): number {
  if (!evidence?.length || !ON_RESIDUALS.has(i.family)) return 0;
  const top = evidence.slice(0, 3).filter((e) => e.explained > 0);
  let best = 0;
  for (const e of top) {
    if (i.columns.includes(e.column)) {
      best = Math.max(best, EVIDENCE_BONUS * Math.min(1, e.explained / EVIDENCE_FULL));
    }
  }
  return best;
}

/** What the parent's importances add to an idea: an interaction of two of its IMPORTANT_TOP strongest
 * numeric columns (what shallow trees build slowly from the columns they lean on most), and dropping a column
 * whose shuffling lowered the parent's loss on rows it did not see (noise it fitted). */
export const IMPORTANT_TOP = 3;
export const INTERACTION_BONUS = 0.2;
export const NOISE_DROP_BONUS = 0.3;

export function importanceBonus(i: Idea, parent: TreeNode, info: Map<string, ColumnInfo>): number {
  const imp = parent.importance;
  if (!imp) return 0;
  if (i.family === "drop_column") {
    const v = imp[i.columns[0] ?? ""];
    return v !== undefined && v < 0 ? NOISE_DROP_BONUS : 0;
  }
  if (i.family !== "ratio" && i.family !== "product") return 0;
  const top = Object.entries(imp)
    .filter(([c, v]) => v > 0 && info.get(c)?.kind === "numeric")
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, IMPORTANT_TOP)
    .map(([c]) => c);
  return i.columns.every((c) => top.includes(c)) ? INTERACTION_BONUS : 0;
}

/** How much the screens' evidence moves an idea at most (insight.ts screenEffects, in units of two standard
 * errors): its family's (optimistic by EXPLORE of its uncertainty, as an untried family is), its columns',
 * and its own where it was screened under another parent. */
export const SCREEN_FAMILY_WEIGHT = 0.5;
export const SCREEN_COLUMN_WEIGHT = 0.2;
export const SCREEN_KEY_WEIGHT = 0.3;

const unit = (x: number) => Math.max(-1, Math.min(1, x / 2));

export function screenBonus(i: Idea & { key: string }, e: ReturnType<typeof screenEffects>): number {
  const f = e.family.get(i.family);
  let bonus = SCREEN_FAMILY_WEIGHT * unit(f ? f.shrunk + EXPLORE * f.sd : EXPLORE);
  const cols = i.columns.flatMap((c) => e.column.get(c) ?? []);
  if (cols.length) bonus += SCREEN_COLUMN_WEIGHT * unit(cols.reduce((t, c) => t + c.shrunk, 0) / cols.length);
  const k = e.key.get(i.key);
  if (k) bonus += SCREEN_KEY_WEIGHT * unit(k.shrunk);
  return bonus;
}

/** How much a family's measured effect moves an idea (at most; priors span 0–0.9), and how much of its
 * uncertainty counts in its favour (an untried family is as uncertain as the prior allows). */
export const FAMILY_WEIGHT = 0.3;
export const EXPLORE = 0.5;

/** The scale of an effect: the starting artifact's fold spread (at least 0.001). */
export function effectScale(s: TreeState): number {
  return Math.max(s.nodes[s.order[0]!]?.dev?.std ?? 0, 0.001);
}

export function withInsights(
  s: TreeState,
  parent: TreeNode,
  ideas: (Idea & { key: string })[],
  onPath: Set<string>,
  evidence: readonly ColumnEvidence[] | null = null,
) {
  const learned = branchInsights(s.nodes, parent.id);
  const scale = effectScale(s);
  const effects = familyEffects(s.nodes, scale);
  const screens = screenEffects(s.nodes);
  const elsewhere = offBranch(s, parent);
  const info = new Map(s.dataset.columns.map((c) => [c.name, c]));
  const count = (f: Family, o: string) =>
    learned.filter((l) => l.insight.family === f && l.insight.outcome === o).length;
  return ideas.map((i) => {
    let score = i.prior + evidenceBonus(i, evidence) + importanceBonus(i, parent, info) +
      screenBonus(i, screens);
    const tried = learned.filter((l) => l.key === i.key);
    if (tried.some((l) => l.insight.outcome !== "helped")) return { ...i, score: -Infinity };
    if (count(i.family, "hurt") >= 2 || count(i.family, "failed") >= 2) return { ...i, score: -Infinity };
    if (tried.some((l) => l.insight.outcome === "helped") && !onPath.has(i.key)) score += 0.6;
    const helped = learned.filter((l) => l.insight.family === i.family && l.insight.outcome === "helped");
    // The family's measured effect, optimistic by part of its uncertainty: a family that helped moves up
    // by as much as the evidence says, one that keeps showing nothing gives way to one not yet tried.
    const e = effects.get(i.family);
    const optimistic = e ? e.shrunk + EXPLORE * e.sd : EXPLORE * scale;
    score += FAMILY_WEIGHT * Math.max(-1, Math.min(1, optimistic / scale));
    if (helped.some((l) => similar(i, l.insight.columns, info))) score += 0.2;
    // A switch to the linear model that did not help on this branch is not retried at another strength
    // (those are close variants); from a linear parent its strengths are the branch's own knob.
    if (i.family === "linear_model" && parent.artifact.model.kind !== "linear" && !helped.length) {
      if (learned.some((l) => l.insight.family === "linear_model")) score -= 0.6;
    }
    const there = elsewhere.filter((l) => l.key === i.key);
    if (there.some((l) => l.outcome === "helped")) score += 0.3;
    else if (there.length) score -= 0.3;
    return { ...i, score };
  });
}
