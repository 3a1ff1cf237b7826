/**
 * The verdict: a pure function of the run state. A method that beats the baseline must be verified (and so
 * comparable); a blocked or false-completing method is withheld, never reported as a negative result.
 *
 * @module
 */
import type { NodeId } from "../graph/types.ts";
import type { RunState, Verdict } from "../model/state.ts";
import { beats } from "./detectors.ts";

export interface Judgement {
  verdict: Verdict;
  detail: Record<string, unknown>;
}

const WITHHELD_CAUSES = new Set(["COMPARABILITY_BLOCK", "SCOPE_VIOLATION", "FALSE_COMPLETION"]);

/** Score a method stands on: its accepted manifest, else its best dev metric seen. */
function methodScore(state: RunState, id: NodeId): number | null {
  const ns = state.nodes[id]!;
  return ns.manifest?.score ?? ns.best;
}

export function judge(state: RunState): Judgement {
  const { plan } = state;
  const dir = plan.protocol.direction;
  const baseline = plan.nodes.find((n) => n.role === "baseline");
  const methods = plan.nodes.filter((n) => n.role === "train" && state.nodes[n.id]!.spawned).map((n) => n.id);
  const base = baseline ? state.nodes[baseline.id]! : undefined;
  const baseScore = base?.status === "verified" ? base.manifest?.score ?? null : null;
  const detail: Record<string, unknown> = {
    baseline: baseline?.id ?? null,
    baseline_score: baseScore,
    metric: plan.protocol.metric,
  };
  if (baseScore === null) {
    return { verdict: "NO VERDICT", detail: { ...detail, reason: "baseline not verified" } };
  }

  for (const m of methods) {
    const ns = state.nodes[m]!;
    const score = ns.manifest?.score;
    if (ns.status === "verified" && score !== undefined && beats(score, baseScore, dir)) {
      return { verdict: "RESEARCH ANSWERED", detail: { ...detail, method: m, score } };
    }
  }
  for (const m of methods) {
    const ns = state.nodes[m]!;
    const withheld = ns.status === "blocked" || (ns.status === "killed" && ns.cause === "FALSE_COMPLETION");
    if (withheld && ns.cause && WITHHELD_CAUSES.has(ns.cause)) {
      return {
        verdict: "RESULT WITHHELD",
        detail: { ...detail, method: m, cause: ns.cause, baseline_stands: true },
      };
    }
  }
  for (const m of methods) {
    const ns = state.nodes[m]!;
    const score = methodScore(state, m);
    // A hang is a failure to make progress, so it counts against the method; a budget fuse does not
    // say the method is worse, only that the run stopped it.
    const failed = ns.status === "verified" || ns.status === "plateaued" ||
      (ns.status === "killed" && ns.cause === "HUNG_RESTART");
    if (failed && score !== null) {
      return {
        verdict: "NEGATIVE RESULT",
        detail: { ...detail, method: m, best_score: score, status: ns.status, best_step: ns.bestStep },
      };
    }
  }
  return { verdict: "NO VERDICT", detail: { ...detail, reason: "no method reached a decidable state" } };
}

/** True once a method is verified, comparable and beats the verified baseline. */
export function answered(state: RunState): NodeId | null {
  const j = judge(state);
  return j.verdict === "RESEARCH ANSWERED" ? j.detail.method as NodeId : null;
}
