/**
 * Which node the next cycle expands. The rule per search mode:
 *
 * - **tree** — UCB1 over dev gain: among nodes that are evaluated or admitted (not pruned, failed or
 *   exhausted, above the depth limit), pick the largest `Q + c·√(ln N / n)`, where Q is the mean dev gain
 *   over the starting artifact of the node's subtree, n the subtree's visits (evaluated and failed nodes),
 *   N the visits of the whole tree, and c the exploration scale (`explorationScale`): with insights on, the
 *   spread of the dev gains the tree's children showed over their parents so far (what one more child may
 *   move a node by, as measured), and until two are measured — or with insights off — the standard deviation
 *   of the starting artifact's fold scores (one fold's noise); at least 0.001. With insights on, Q reads each
 *   node's own gain over its parent shrunk toward its family's effect (`shrunkGains`). Ties go to the older node.
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
import { boundedZ, ownEffects } from "./insight.ts";

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

/**
 * UCB's exploration scale. With insights on, what the tree measured: the standard deviation of every child's
 * dev gain over its parent so far (how much one more child may move a node), once two children are measured;
 * before that, and with insights off, the starting artifact's fold spread (one fold's noise). At least 0.001.
 */
export function explorationScale(s: TreeState): number {
  const root = s.nodes[s.order[0]!]!;
  const fold = Math.max(root.dev?.std ?? 0, 0.001);
  if (!s.config.insights) return fold;
  const sign = signOf(s);
  const gains: number[] = [];
  for (const id of s.order) {
    const n = s.nodes[id]!;
    const p = n.parent === null ? undefined : s.nodes[n.parent];
    if (p?.dev && n.dev && n.status !== "failed-informative") gains.push(sign * (n.dev.mean - p.dev.mean));
  }
  if (gains.length < 2) return fold;
  const m = gains.reduce((t, x) => t + x, 0) / gains.length;
  const sd = Math.sqrt(gains.reduce((t, x) => t + (x - m) ** 2, 0) / (gains.length - 1));
  return Math.max(sd, 0.001);
}

/**
 * With insights on (tree search), each node's dev gain over the start as selection reads it: the parent's
 * gain plus the node's own part over its parent, shrunk as the end's choice shrinks it (gate/gate_rule.ts
 * `endEvidence`) — its per-row z shrunk toward what the rest of its family showed (`ownEffects`), the own
 * dev gain scaled by that ratio (at most ×2, at least ×−1). A lucky step of a family that keeps failing then
 * draws less of the budget. A failed node counts its parent's gain, as backpropagation counts it.
 */
export function shrunkGains(s: TreeState): Map<TreeNodeId, number> {
  const own = ownEffects(s);
  const out = new Map<TreeNodeId, number>();
  for (const id of s.order) {
    const n = s.nodes[id]!;
    const p = n.parent === null ? undefined : s.nodes[n.parent];
    const up = p ? devGain(s, p) : 0;
    const mine = n.insight?.rows, shrunk = own.get(id);
    if (!p || n.status === "failed-informative") out.set(id, p ? up : 0);
    else if (!mine || shrunk === undefined || boundedZ(mine.z) === 0) out.set(id, devGain(s, n));
    else {
      const ratio = Math.max(-1, Math.min(2, shrunk / boundedZ(mine.z)));
      out.set(id, up + ratio * (devGain(s, n) - up));
    }
  }
  return out;
}

/** Mean of `gains` over the node's subtree as backpropagation visited it (every node below the root that was
 * measured or failed, the node itself included). */
function subtreeMean(s: TreeState, n: TreeNode, gains: ReadonlyMap<TreeNodeId, number>): number {
  let sum = 0, count = 0;
  const stack = [n];
  while (stack.length) {
    const at = stack.pop()!;
    if (at.parent !== null && (at.dev || at.status === "failed-informative")) {
      sum += gains.get(at.id) ?? 0;
      count += 1;
    }
    for (const c of at.children) stack.push(s.nodes[c]!);
  }
  return count ? sum / count : 0;
}

export function ucb(s: TreeState, n: TreeNode, gains?: ReadonlyMap<TreeNodeId, number>): number {
  const root = s.nodes[s.order[0]!]!;
  const c = explorationScale(s);
  const total = Math.max(root.visits, 1);
  const visits = Math.max(n.visits, 1);
  const q = gains ? subtreeMean(s, n, gains) : n.value / visits;
  return q + c * Math.sqrt(Math.log(total) / visits);
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
  const gains = s.config.insights ? shrunkGains(s) : undefined;
  let best = pool[0]!;
  let bestScore = ucb(s, best, gains);
  for (const n of pool.slice(1)) {
    const u = ucb(s, n, gains);
    if (u > bestScore) [best, bestScore] = [n, u];
  }
  return best.id;
}
