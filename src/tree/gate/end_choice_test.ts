/**
 * The end's choice with insights: a node's own gain over its parent shrunk toward what the rest of its family
 * showed in the tree, as far as that family agrees with itself, so a lone lucky change of a family that keeps failing gives way to one whose
 * family keeps helping; without insights (and for random or greedy search), the raw comparison.
 *
 * @module
 */
import { deepEqual, equal } from "node:assert/strict";
import { fakeStart, opening } from "../../../tests/tree_fake.ts";
import { step } from "../step.ts";
import type { TreeConfig, TreeNode, TreeState } from "../types.ts";
import { endEvidence, finalCandidate, ownEffects } from "./gate_rule.ts";
import type { LossGain } from "./row_loss.ts";

const rows = (gain: number, z: number, n = 400): LossGain => ({ loss: "logloss", gain, se: gain / z, n, z });

/** A state whose root n0 is measured, with root children of the given families: own z = their z vs start. */
function tree(
  over: Partial<TreeConfig>,
  kids: { id: string; family: string; gain: number; z: number; parent?: string }[],
) {
  let s: TreeState = fakeStart({ cycles: 1, gateAt: "end", heldoutBudget: 2, ...over });
  for (const ev of opening()) s = step(s, ev).state;
  const root = s.nodes.n0!;
  for (const k of kids) {
    const parent = k.parent ?? "n0";
    const up = parent === "n0" ? 0 : s.nodes[parent]!.oof!.gain;
    const own = rows(k.gain - up, k.z * (k.gain - up) / k.gain);
    const node = {
      ...structuredClone(root),
      id: k.id,
      parent,
      status: "evaluated",
      gate: null,
      dev: { mean: root.dev!.mean + k.gain, std: 0.01, folds: root.dev!.folds.map((x) => x + k.gain) },
      oof: rows(k.gain, k.z),
      hypothesis: { key: k.id, family: k.family },
      insight: {
        family: k.family,
        columns: [],
        outcome: own.z > 2 ? "helped" : "neutral",
        delta: null,
        rows: own,
        why: "",
        sentence: "",
      },
    } as unknown as TreeNode;
    s.nodes[k.id] = node;
    s.order.push(k.id);
  }
  return s;
}

const kids = [
  // group_stats keeps failing (own z −1.2, −0.8) but one of its tries got lucky: z 3.0 over the start.
  { id: "m1", family: "group_stats", gain: -0.012, z: -1.2 },
  { id: "m2", family: "group_stats", gain: -0.008, z: -0.8 },
  { id: "m3", family: "group_stats", gain: 0.03, z: 3.0 },
  // linear_model helped where it was tried: z 2.6, a smaller gain.
  { id: "m4", family: "linear_model", gain: 0.025, z: 2.6 },
];

Deno.test("ownEffects() shrinks each node's own z toward the rest of its family, as far as those agree", () => {
  const s = tree({}, kids);
  const own = ownEffects(s);
  // m3's family mates agree (z −1.2, −0.8: no spread beyond the floor, τ² 0.25): m3 keeps a fifth of its z
  // and takes the rest from their pooled −2/3.
  equal(own.get("m3")!.toFixed(6), (0.2 * 3.0 + 0.8 * (-2 / 3)).toFixed(6));
  // m1's mates are m2 and m3, which differ (variance 7.22 − 1): m1 keeps most of its own z.
  const spread = ((-0.8 - 1.1) ** 2 + (3.0 - 1.1) ** 2) - 1;
  const w = spread / (spread + 1);
  equal(own.get("m1")!.toFixed(6), (w * -1.2 + (1 - w) * (2.2 / 3)).toFixed(6));
  // Alone in its family: halfway toward none.
  equal(own.get("m4")!.toFixed(6), (2.6 / 2).toFixed(6));
});

Deno.test("ownEffects(): a family whose members differ does not lift a node its own rows found flat", () => {
  // A switch to the strong GBDT default helped hugely from a weak GBDT (z 6) and hurt from another parent
  // (z −3); measured once more from a linear parent it did nothing (z 0.1). Halving toward the family's
  // pooled 0.78 would have credited it with 0.44; the family's spread leaves it about where its rows put it.
  const s = tree({}, [
    { id: "c1", family: "capacity", gain: 0.06, z: 6 },
    { id: "c2", family: "capacity", gain: -0.03, z: -3 },
    { id: "c3", family: "capacity", gain: 0.001, z: 0.1 },
  ]);
  const z = ownEffects(s).get("c3")!;
  equal(Math.abs(z - 0.1) < 0.05, true, String(z));
});

Deno.test("finalCandidate() with insights sends the change whose family keeps helping, not a failing family's lucky one", () => {
  const on = tree({ insights: true, search: "tree" }, kids);
  equal(finalCandidate(on), "m4");
  // The lucky node's own z is pulled most of the way toward its agreeing mates'; the gain shrinks with it.
  const zOwn = 0.2 * 3.0 + 0.8 * (-2 / 3);
  const e = endEvidence(on, on.nodes.m3!, ownEffects(on));
  equal(e.z.toFixed(4), zOwn.toFixed(4));
  equal(e.gain.toFixed(6), (0.03 * zOwn / 3).toFixed(6));
  // Without insights, and for the random and greedy baselines, the raw comparison: the lucky one.
  equal(finalCandidate(tree({ insights: false, search: "tree" }, kids)), "m3");
  equal(finalCandidate(tree({ insights: true, search: "random" }, kids)), "m3");
  equal(finalCandidate(tree({ insights: true, search: "greedy" }, kids)), "m3");
});

Deno.test("endEvidence() keeps the parent's gain over the start whole and shrinks only the node's own part", () => {
  // m5 extends m4 (gain 0.025 over the start) by a linear_model change of its own: 0.035 in all.
  const s = tree({ insights: true, search: "tree" }, [...kids, {
    id: "m5",
    family: "linear_model",
    gain: 0.035,
    z: 3.2,
    parent: "m4",
  }]);
  const m5 = s.nodes.m5!;
  const own = ownEffects(s);
  const e = endEvidence(s, m5, own);
  const mine = m5.insight!.rows!;
  // Its one family mate (m4, z 2.6) says nothing of the family's spread: halfway toward 2.6 / 2.
  const zOwn = own.get("m5")!;
  equal(zOwn.toFixed(8), ((mine.z + 2.6 / 2) / 2).toFixed(8));
  equal(e.gain.toFixed(8), (0.025 + zOwn * (mine.gain / mine.z)).toFixed(8));
  equal(e.z.toFixed(8), (e.gain / (0.035 / 3.2)).toFixed(8));
  // Without insights: the raw comparison, as recorded.
  deepEqual(endEvidence(s, m5, null), { gain: 0.035, z: 3.2 });
});
