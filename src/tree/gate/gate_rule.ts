/**
 * The tree's pure judgements that need no step: the merge gate's rule (is a held-out gain beyond noise,
 * over how many planned comparisons) and the flags a finished run carries on the final test. The step
 * function (step.ts) and the dashboard's tree view read them.
 *
 * @module
 */
import type { PairedGain } from "./paired.ts";
import { gateZ } from "./row_loss.ts";
import { confirmZ, endBar, promise } from "../confirm.ts";
import { signOf } from "../ideate/select.ts";
import { classify, ownEffects, pairedDelta } from "../ideate/insight.ts";

export { ownEffects };
import { ACCEPT_EPS, improves } from "../../thresholds.ts";
import type { FinalReferences, TreeNode, TreeNodeId, TreeState } from "../types.ts";

/**
 * How many standard errors a held-out gain must reach (one-sided, about 5 % of the gains a change with no
 * real effect shows). Fixed before any benchmark ran and never tuned: a stricter bar admits fewer real
 * gains, a looser one admits noise (on 57–200 held-out rows, ACCEPT_EPS alone admitted changes whose
 * held-out gain was pure noise and whose final-test gain was negative).
 */
export const Z_GATE = 1.645;

/** The comparisons a run may make at its gate: every held-out query but the baseline's. */
export function plannedComparisons(s: Pick<TreeState, "heldout">): number {
  return Math.max(1, s.heldout.budget - 1);
}

/**
 * The held-out gain is beyond the held-out part's noise. With the per-row loss comparison: its paired z (the
 * mean difference's)
 * reaches `gateZ(queries)`, so over all of a run's `queries` comparisons a no-effect candidate is admitted
 * with probability at most GATE_ALPHA. Without it (a state recorded before it existed): at least Z_GATE
 * standard errors of the metric's paired bootstrap. With no comparison at all (the incumbent's predictions
 * could not be had), nothing is admitted: an unmeasured gain is not evidence.
 */
export function significant(p: PairedGain | null, queries = 1): boolean {
  if (p === null) return false;
  // The mean loss difference's z alone: the metric is a mean over rows, and a candidate better on most rows
  // (a large signed-rank z) can still lose on average by being confidently wrong on a few — on penguins a
  // rank z of 6.4 with a mean z of 1.1 admitted a model whose test log-loss was eight times the start's. The
  // signed-rank z is kept in the record, beside it, and decides nothing.
  if (p.loss) return p.loss.n > 1 && p.loss.z >= gateZ(queries);
  return (p.method === "linearized" || p.b > 1) && Number.isFinite(p.se) && p.gain >= Z_GATE * p.se;
}

/**
 * What the reader must know about the result on the final test: the admitted result (refit when it was,
 * else fit on dev) not beating the trivial baseline, or falling below the toolkit's strong default.
 */
export function flagsOf(s: TreeState, devOnly: number | null, refs: FinalReferences): string[] {
  const m = s.config.metric;
  const admitted = refs.refit?.score ?? devOnly;
  const which = refs.refit?.score !== undefined && refs.refit?.score !== null ? "refit" : "dev-only fit";
  if (admitted === null) return [];
  const out: string[] = [];
  const sign = signOf(s);
  const f = (x: number) => x.toFixed(4);
  const trivial = refs.trivial.score;
  if (trivial !== null && sign * (admitted - trivial) <= 0) {
    out.push(
      `BELOW TRIVIAL: the admitted result (${which}, ${m} ${
        f(admitted)
      }) does not beat the trivial baseline ` +
        `(${f(trivial)}) on the final test`,
    );
  } else if (m === "r2" && admitted < 0) {
    out.push(`BELOW TRIVIAL: the admitted result (${which}) has R² ${f(admitted)} < 0 on the final test`);
  }
  const strong = refs.strong_default.score;
  if (strong !== null && sign * (admitted - strong) < 0) {
    out.push(
      `BELOW STRONG DEFAULT: the admitted result (${which}, ${m} ${f(admitted)}) falls below the toolkit's ` +
        `strong default (${f(strong)}) on the final test`,
    );
  }
  return out;
}

/** The candidate beats the incumbent on the same dev folds by ACCEPT_EPS and one standard error of the
 * paired fold deltas: a screen (looser than a label), so a held-out query is not spent on fold noise. */
export function beyondNoise(s: TreeState, n: TreeNode, inc: TreeNode): boolean {
  return classify(pairedDelta(n.dev!, inc.dev!, signOf(s)), 1) === "helped";
}

/**
 * A node's gain over the start and its z, as the end's choice reads them (`n.oof`). With `own` (insights on,
 * tree search: `ownEffects`, each node's own z by id): the part of the gain that is the node's own over its
 * parent is shrunk toward what the other nodes of its family showed in the tree, as far as they agree
 * (insight.ts `towardFamily`) — a gain over the start is the parent's plus the node's own, exactly (per-row
 * losses add), and a lone lucky change of a family that keeps failing is the likeliest of all the tree's
 * nodes to be the max of its noise (held-out rows then refuse it), where one whose family keeps helping keeps
 * its gain. A family whose members differ lends a node little: a GBDT switch measured from a linear parent
 * is not credited with what the same switch did from a weak GBDT. The z is the shrunk gain over the node's
 * own standard error against the start.
 */
export function endEvidence(
  s: Pick<TreeState, "nodes" | "order">,
  n: TreeNode,
  own: ReadonlyMap<TreeNodeId, number> | null,
): { gain: number; z: number } {
  const o = n.oof!;
  const raw = { gain: o.gain, z: confirmZ(o) };
  const mine = n.insight?.rows, shrunk = own?.get(n.id);
  if (shrunk === undefined || !mine || !n.parent || !(o.z !== 0) || !(mine.z !== 0)) return raw;
  const root = s.order[0];
  const up = n.parent === root ? 0 : s.nodes[n.parent]?.oof?.gain;
  if (up === undefined) return raw;
  const seOwn = mine.gain / mine.z, se = o.gain / o.z;
  if (!(seOwn > 0) || !(se > 0)) return raw;
  const gain = up + shrunk * seOwn;
  return { gain, z: gain / se };
}

/**
 * With the gate at the end (`gateAt: "end"`): the node the held-out rows are likeliest to confirm, while a
 * held-out query remains; null otherwise (then the final test). The gate tests a gain against its spread
 * over rows, so the candidate is the one whose pooled out-of-fold loss beats the start's by the most it is
 * likely to keep there — its per-row gain times the chance that its z, scaled to the held-out rows, clears the
 * bar (confirm.ts `promise`): not the largest mean, which is the likeliest to be a lucky one (its folds'
 * winner's curse) or to rest on a few rows the held-out part may not hold, nor the surest, which is often a
 * sliver. Any node not yet gated whose dev score beats the start's by ACCEPT_EPS and whose rows promise
 * something may go: a fold-level screen first would keep out exactly the gains a heavy-tailed loss hides in
 * its folds' spread (a better-calibrated model on a few confidently wrong rows), and an unspent query admits
 * nothing — the gate's bar, not the choice, is what holds a no-effect candidate's chance of admission (the
 * held-out rows are not the rows it was chosen on). With insights on (tree search), each node's own part of
 * that gain is first shrunk toward its family's (`endEvidence`). Nodes measured before that comparison existed are ranked
 * by the largest lower bound (mean − one standard error) of their paired fold deltas over the incumbent,
 * among those beyond the folds' noise.
 */
export function finalCandidate(s: TreeState): TreeNodeId | null {
  if (s.config.gateAt !== "end" || s.heldout.used >= s.heldout.budget || !s.incumbent) return null;
  const inc = s.nodes[s.incumbent]!;
  if (!inc.dev) return null;
  const open = s.order.map((id) => s.nodes[id]!).filter((n) =>
    n.status === "evaluated" && n.gate === null && n.dev &&
    improves(inc.dev!.mean, n.dev.mean, ACCEPT_EPS, s.config.direction)
  );
  const bar = endBar(s);
  const own = s.config.insights && s.config.search === "tree" ? ownEffects(s) : null;
  const promised = (n: TreeNode) => {
    const { gain, z } = endEvidence(s, n, own);
    return promise(gain, z, n.oof!.n, s.dataset.heldout, bar);
  };
  const rowWise = inc.id === s.order[0] ? open.filter((n) => n.oof && promised(n) > 0) : [];
  let best: { id: TreeNodeId; key: number } | null = null;
  for (const n of rowWise.length ? rowWise : open.filter((n) => beyondNoise(s, n, inc))) {
    const d = pairedDelta(n.dev!, inc.dev, signOf(s));
    const key = rowWise.length ? promised(n) : d.mean - d.std / Math.sqrt(Math.max(1, d.folds.length));
    if (!best || key > best.key) best = { id: n.id, key };
  }
  return best?.id ?? null;
}
