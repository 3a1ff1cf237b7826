/**
 * Which node the next cycle expands. The rule per search mode:
 *
 * - **tree, insights on** — expected improvement from what the tree measured: among nodes that are evaluated
 *   or admitted (not pruned, failed or exhausted, above the depth limit), the one whose next child is
 *   expected to beat the best dev gain so far by the most. A node's next child is modelled as its dev gain
 *   plus a draw from the gains its own children showed over it (their insights' measurements), shrunk toward
 *   what children showed anywhere in the tree (`SHRINK` pseudo-children): a node whose children keep
 *   changing nothing has a small spread and gives way, one whose children differ widely (a new model family
 *   beside a feature step) stays worth expanding, and a fresh node is as promising as the tree's record
 *   says. The exploration scale is that measured spread, not one fold's noise (`fertility`, `expectedGain`).
 * - **tree, insights off** (the ablation) — UCB1 over dev gain: pick the largest `Q + c·√(ln N / n)`, where
 *   Q is the mean dev gain over the starting artifact of the node's subtree, n the subtree's visits
 *   (evaluated and failed nodes), N the visits of the whole tree, and c the standard deviation of the
 *   starting artifact's fold scores (at least 0.001) — exploration is worth about one fold's noise.
 *   Ties go to the older node, under either rule.
 * - **greedy** — always the incumbent (the last admitted node); when it is exhausted, or while the gate
 *   waits for the end, the best node on dev.
 * - **random** — uniformly among every evaluated node (pruned ones too), from a seeded draw.
 *
 * Random draws are a pure function of the seed and the purpose (mulberry32 over `subSeed`), so the state
 * needs no generator of its own.
 *
 * @module
 */
import { mulberry32, subSeed } from "../../tabular/prng.ts";
import type { TreeNode, TreeNodeId, TreeState } from "../types.ts";
import { normalCdf } from "../gate/row_loss.ts";

export const signOf = (s: TreeState): 1 | -1 => (s.config.direction === "maximize" ? 1 : -1);

/** Dev gain of a node over the root (positive = better), 0 without a dev score. */
export function devGain(s: TreeState, n: TreeNode): number {
  const root = s.nodes[s.order[0]!];
  if (!n.dev || !root?.dev) return 0;
  return signOf(s) * (n.dev.mean - root.dev.mean);
}

/** A seeded uniform draw in [0, 1) for `purpose`. */
export function draw(seed: number, purpose: string): number {
  return mulberry32(subSeed(seed, purpose))();
}

function expandable(s: TreeState, n: TreeNode, pruned: boolean): boolean {
  const ok = n.status === "evaluated" || n.status === "admitted" || (pruned && n.status === "pruned");
  return ok && !n.exhausted && n.depth < s.config.maxDepth;
}

export function ucb(s: TreeState, n: TreeNode): number {
  const root = s.nodes[s.order[0]!]!;
  const c = Math.max(root.dev?.std ?? 0, 0.001);
  const total = Math.max(root.visits, 1);
  const visits = Math.max(n.visits, 1);
  return n.value / visits + c * Math.sqrt(Math.log(total) / visits);
}

/** Pseudo-children of the tree-wide record a node's own children are shrunk toward. */
export const SHRINK = 2;

/** What a child improved on its parent on dev, by parent: every measured child (evaluated, admitted or
 * pruned), a hurt counted as no improvement — a child worse than its parent is not kept, so how much worse
 * says nothing about what the next child may gain (a catastrophic move would otherwise widen the spread and
 * make its parent look fertile). */
function childGains(s: TreeState): Map<TreeNodeId, number[]> {
  const out = new Map<TreeNodeId, number[]>();
  const sign = signOf(s);
  for (const id of s.order) {
    const n = s.nodes[id]!;
    const p = n.parent === null ? undefined : s.nodes[n.parent];
    if (!p?.dev || !n.dev || !["evaluated", "admitted", "pruned"].includes(n.status)) continue;
    out.set(p.id, [...out.get(p.id) ?? [], Math.max(0, sign * (n.dev.mean - p.dev.mean))]);
  }
  return out;
}

const spread = (xs: readonly number[], mean: number) =>
  xs.length > 1 ? xs.reduce((t, x) => t + (x - mean) ** 2, 0) / (xs.length - 1) : 0;

/**
 * The distribution of `n`'s next child's gain over it: the mean and variance of its children's gains, each
 * shrunk toward the tree-wide record (`prior`: every measured child's gain; before there are two, a mean of 0
 * and one fold's noise) by SHRINK pseudo-children.
 */
export function fertility(
  own: readonly number[],
  prior: { mean: number; variance: number },
): { mean: number; sd: number } {
  const k = own.length;
  const m = k ? own.reduce((t, x) => t + x, 0) / k : 0;
  const mean = (k * m + SHRINK * prior.mean) / (k + SHRINK);
  const variance = (Math.max(0, k - 1) * spread(own, m) + SHRINK * prior.variance) /
    (Math.max(0, k - 1) + SHRINK);
  return { mean, sd: Math.sqrt(variance) };
}

/** E[max(0, X − target)] for X ~ N(mean, sd²): the expected improvement over `target`. */
export function expectedGain(mean: number, sd: number, target: number): number {
  if (!(sd > 0)) return Math.max(0, mean - target);
  const u = (mean - target) / sd;
  return sd * Math.exp(-u * u / 2) / Math.sqrt(2 * Math.PI) + (mean - target) * normalCdf(u);
}

/** Each expandable node's expected improvement over the best dev gain so far (insights on). */
export function improvements(s: TreeState, pool: readonly TreeNode[]): Map<TreeNodeId, number> {
  const gains = childGains(s);
  const all = [...gains.values()].flat();
  const floor = Math.max(s.nodes[s.order[0]!]?.dev?.std ?? 0, 0.001);
  const allMean = all.length ? all.reduce((t, x) => t + x, 0) / all.length : 0;
  const prior = all.length >= 2
    ? { mean: allMean, variance: Math.max(spread(all, allMean), 1e-12) }
    : { mean: 0, variance: floor * floor };
  const best = Math.max(
    0,
    ...s.order.map((id) => s.nodes[id]!).filter((n) => n.dev).map((n) => devGain(s, n)),
  );
  return new Map(pool.map((n) => {
    const f = fertility(gains.get(n.id) ?? [], prior);
    return [n.id, expectedGain(devGain(s, n) + f.mean, f.sd, best)];
  }));
}

/** The node to expand next, or null when nothing can be expanded. */
export function chooseParent(s: TreeState): TreeNodeId | null {
  const nodes = s.order.map((id) => s.nodes[id]!);
  if (s.config.search === "random") {
    const pool = nodes.filter((n) => expandable(s, n, true));
    if (!pool.length) return null;
    return pool[Math.floor(draw(s.config.seed, `select:${s.cycle}:${s.tick}`) * pool.length)]!.id;
  }
  const pool = nodes.filter((n) => expandable(s, n, false));
  if (!pool.length) return null;
  if (s.config.search === "greedy") {
    // With the gate at the end the incumbent stays the start while the tree grows: greedy follows dev.
    const inc = s.incumbent && s.config.gateAt !== "end" ? s.nodes[s.incumbent] : undefined;
    if (inc && pool.includes(inc)) return inc.id;
    return pool.reduce((best, n) => (devGain(s, n) > devGain(s, best) ? n : best)).id;
  }
  const ei = s.config.insights ? improvements(s, pool) : null;
  const value = (n: TreeNode) => (ei ? ei.get(n.id)! : ucb(s, n));
  let best = pool[0]!;
  let bestScore = value(best);
  for (const n of pool.slice(1)) {
    const u = value(n);
    if (u > bestScore) [best, bestScore] = [n, u];
  }
  return best.id;
}
