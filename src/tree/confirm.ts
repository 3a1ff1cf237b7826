/**
 * How confirmable a node is: its pooled out-of-fold dev predictions against the starting artifact's, row by
 * row on the metric's continuous loss (row_loss.ts) — the very statistic the merge gate computes on held-out
 * rows, measured here on dev rows only. The gate's power on a few hundred held-out rows is what limits an
 * admission, and it depends on the gain's size relative to its spread over rows, not on the gain alone: a
 * change that helps a little on most rows is confirmed where one that helps a lot on three rows is not. With
 * the gate at the end the incumbent is the start until then, so the end candidate is the node whose dev rows
 * predict the largest held-out z (gate_rule.ts finalCandidate), and the tree proposes, beside its ensembles,
 * the blend of the start with one evaluated node whose out-of-fold z against the start is largest
 * (`anchoredBlend`): a candidate built to be confirmable, chosen on dev rows alone.
 *
 * @module
 */
import type { TreeData } from "./data.ts";
import {
  ENSEMBLE_ROUNDS,
  ensembleKey,
  lossView,
  membersOf,
  pooled,
  pooledLabels,
  readOof,
  sizesOf,
} from "./ensemble.ts";
import { gateZ, lossFor, type LossGain, normalCdf, rowLosses } from "./gate/row_loss.ts";
import type { Hypothesis, TreeNode, TreeState } from "./types.ts";

/** The statistic the gate admits on: the mean per-row loss difference's z (gate_rule.ts significant). */
export const confirmZ = (g: LossGain): number => g.z;

/** The bar the end's gate query must reach (gate_rule.ts). */
export const endBar = (s: TreeState): number => gateZ(Math.max(1, s.heldout.budget - 1));

/**
 * What a dev comparison promises at the gate: its per-row gain times the chance that the held-out rows confirm
 * it — the z it would show on `heldout` rows (the dev z scaled by √(held-out / dev rows)) against the bar. The
 * largest gain alone often rests on a few rows the held-out part may not hold; the surest alone is often a
 * sliver; their product is the gain one may expect to keep.
 */
export function promise(gain: number, z: number, devRows: number, heldout: number, bar: number): number {
  if (!(gain > 0) || !(devRows > 0)) return 0;
  return gain * normalCdf(z * Math.sqrt(heldout / devRows) - bar);
}

/** Most evaluated nodes an anchored blend is chosen from (those whose own out-of-fold z is largest). */
export const BLEND_POOL = 8;

/** The mean per-row loss difference of `cand` against `base` (positive: `cand` loses less) and its z. */
function meanZ(base: Float64Array, cand: Float64Array): { gain: number; z: number } {
  const n = base.length;
  let m = 0;
  for (let i = 0; i < n; i++) m += base[i]! - cand[i]!;
  m /= n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (base[i]! - cand[i]! - m) ** 2;
  const se = n > 1 ? Math.sqrt(ss / (n - 1) / n) : 0;
  return { gain: m, z: se > 0 ? m / se : 0 };
}

/** Single nodes a blend with the start may take: measured on dev, not failed, not ensembles, not the start;
 * the BLEND_POOL whose own comparison with the start is strongest. */
function partners(s: TreeState): TreeNode[] {
  const root = s.order[0]!;
  return s.order.map((id) => s.nodes[id]!).filter((n) =>
    n.id !== root && n.dev && n.oof && !n.artifact.members &&
    (n.status === "evaluated" || n.status === "pruned")
  ).sort((a, b) => b.oof!.z - a.oof!.z || (a.id < b.id ? -1 : 1)).slice(0, BLEND_POOL);
}

/**
 * A blend anchored at the start: greedy forward selection with replacement (as `caruana`), from the start
 * alone, adding whichever of the start and the evaluated nodes (`partners`) raises the blend's `promise`
 * against the start on pooled out-of-fold rows (its mean per-row gain and that gain's z) the most, for at most ENSEMBLE_ROUNDS additions, stopping
 * when none raises it. Weights are counts / total. Returned as an ensemble hypothesis; null when the start's
 * predictions are not kept, nothing beats the start on its rows, or the blend is already in the tree. Dev
 * rows only: held-out and test rows never reach it.
 */
export function anchoredBlend(runDir: string, s: TreeState, data: TreeData): Hypothesis | null {
  const root = s.order[0]!;
  const { target } = data.task;
  const sizes = sizesOf(data);
  const start = readOof(runDir, root, target, sizes);
  if (!start) return null;
  const metric = s.config.metric;
  const { cands, y } = lossView(
    [
      { id: root, oof: pooled(start) },
      ...partners(s).flatMap((n) => {
        const oof = readOof(runDir, n.id, target, sizes);
        return oof ? [{ id: n.id, oof: pooled(oof) }] : [];
      }),
    ],
    pooledLabels(data),
    lossFor(metric),
  );
  if (cands.length < 2) return null;
  const base = cands[0]!.oof;
  const baseLoss = rowLosses(metric, y, base);
  const counts: number[] = cands.map((_, i) => (i === 0 ? 1 : 0));
  const sum = Float64Array.from(base.values);
  const values = new Float64Array(sum.length);
  const bar = endBar(s), heldout = s.dataset.heldout;
  let best = 0, z = 0;
  for (let r = 1; r < ENSEMBLE_ROUNDS; r++) {
    let pick = -1, pickValue = best, pickZ = z;
    cands.forEach((c, i) => {
      const v = c.oof.values;
      for (let j = 0; j < sum.length; j++) values[j] = (sum[j]! + v[j]!) / (r + 1);
      const g = meanZ(baseLoss, rowLosses(metric, y, { ...base, values }));
      const value = promise(g.gain, g.z, y.length, heldout, bar);
      if (value > pickValue * (1 + 1e-9) + 1e-15) (pick = i), (pickValue = value), (pickZ = g.z);
    });
    if (pick < 0) break;
    counts[pick]! += 1;
    const v = cands[pick]!.oof.values;
    for (let j = 0; j < sum.length; j++) sum[j] = sum[j]! + v[j]!;
    best = pickValue;
    z = pickZ;
  }
  const members = membersOf(cands, counts);
  if (!members) return null;
  const key = ensembleKey(members);
  if (s.order.some((id) => s.nodes[id]!.hypothesis?.key === key)) return null;
  return {
    key,
    family: "ensemble",
    columns: [],
    params: { members: members.map((m) => `${m.node}*${m.weight}`).join("+"), anchored: "start" },
    text:
      `Blend the start with what beats it most steadily: ${
        members.map((m) => `${m.node} (weight ${m.weight.toFixed(2)})`).join(", ")
      }, chosen so that its out-of-fold ${
        lossFor(metric)
      } loss beats the start's by the largest z over the ` +
      `dev rows (${z.toFixed(2)}), the statistic the held-out rows must confirm.`,
    step: null,
    model: {},
    members,
    source: "library",
    tokens: 0,
  };
}
