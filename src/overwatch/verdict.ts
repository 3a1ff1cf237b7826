/**
 * The verdict: one pure function of the run state, which the supervisor records, the report and the
 * terminal render, and the dashboard shows — so they cannot disagree. The rules (ARCHITECTURE.md, "The
 * verdict"), applied to every training method in plan order:
 *
 * 1. Nothing is compared without a frozen comparability tuple, a verified baseline with a score, and
 *    tuples on both sides equal to the frozen one.
 * 2. A method is *answered* when it is verified, comparable, and beats the baseline by at least ACCEPT_EPS.
 * 3. A method is *withheld* when it is blocked (not comparable, out of lane) or fused for false completion.
 * 4. A method is *negative* when it is verified or plateaued or killed as hung, and its best score does not
 *    beat the baseline. An unverified best that beats the baseline decides nothing.
 * 5. RESEARCH ANSWERED if any method is answered, else RESULT WITHHELD if any is withheld, else NEGATIVE
 *    RESULT if any is negative, else NO VERDICT with the reason. Among several answered (or negative)
 *    methods — a sweep's configurations, say — the verdict rests on the best score (verified, else best
 *    observed), ties in plan order; among withheld ones, on the first in plan order.
 *
 * @module
 */
import type { Direction, NodeId } from "../graph/types.ts";
import { tupleOf } from "../gates/comparability.ts";
import type { Judgement, MethodJudgement, MethodOutcome } from "../model/judgement.ts";
import type { NodeState, RunState, Tuple } from "../model/state.ts";
import { ACCEPT_EPS, improves } from "../thresholds.ts";
import { nodeOf } from "../model/topology.ts";
import { beats } from "./detectors.ts";

const WITHHELD = new Set(["COMPARABILITY_BLOCK", "SCOPE_VIOLATION"]);

function sameTuple(a: Tuple | undefined, b: Tuple | null): boolean {
  return !!a && !!b && a.data_hash === b.data_hash && a.split_hash === b.split_hash &&
    a.protocol_version === b.protocol_version && a.seed === b.seed;
}

const finite = (x: unknown): x is number => typeof x === "number" && Number.isFinite(x);

function judgeMethod(
  id: NodeId,
  ns: NodeState,
  frozen: Tuple | null,
  base: number,
  dir: Direction,
): MethodJudgement {
  const m = ns.manifest;
  const comparable = ns.status === "verified" && m !== null && sameTuple(tupleOf(m), frozen);
  const score = comparable && finite(m!.score) ? m!.score : null;
  const best = score ?? ns.best;
  const out = { node: id, status: ns.status, cause: ns.cause, score, best, best_step: ns.bestStep };
  // Beating the baseline means by at least ACCEPT_EPS: a difference inside it is not measurable.
  const beatsBase = best !== null && improves(base, best, ACCEPT_EPS, dir);
  if (score !== null && beatsBase) {
    return { ...out, outcome: "answered", why: "verified and beats the baseline" };
  }
  if (ns.status === "blocked" && ns.cause && WITHHELD.has(ns.cause)) {
    return { ...out, outcome: "withheld", why: `blocked (${ns.cause})` };
  }
  if (ns.status === "killed" && ns.cause === "FALSE_COMPLETION") {
    return { ...out, outcome: "withheld", why: "its claims failed acceptance until fused" };
  }
  if (ns.status === "verified" && score === null) {
    return {
      ...out,
      outcome: "undecided",
      why: "verified, but its manifest is not comparable to the frozen tuple",
    };
  }
  const failed = ns.status === "verified" || ns.status === "plateaued" ||
    (ns.status === "killed" && ns.cause === "HUNG_RESTART");
  if (failed && !beatsBase) {
    // A hung trainer that never wrote a metric made no progress at all: that counts against it too.
    const why = best === null ? "it hung before reaching any score" : "its best does not beat the baseline";
    return { ...out, outcome: "negative", why };
  }
  if (failed && beatsBase) {
    return {
      ...out,
      outcome: "undecided",
      why: `${ns.status} with an unverified best that beats the baseline`,
    };
  }
  return { ...out, outcome: "undecided", why: `${ns.status}${ns.cause ? ` (${ns.cause})` : ""}` };
}

export function judge(state: RunState): Judgement {
  const { plan } = state;
  const dir = plan.protocol.direction;
  const baseline = plan.nodes.find((n) => n.role === "baseline");
  const bs = baseline ? state.nodes[baseline.id]! : undefined;
  const frozen = state.frozen;
  const baseScore = bs?.status === "verified" && bs.manifest && finite(bs.manifest.score)
    ? bs.manifest.score
    : null;
  const head = { metric: plan.protocol.metric, direction: dir, baseline: baseline?.id ?? null };
  const none = (reason: string): Judgement => ({
    verdict: "NO VERDICT",
    detail: { ...head, baseline_score: baseScore, reason, methods: [] },
  });
  if (!frozen) return none("no comparability tuple was frozen");
  if (!baseline) return none("the plan has no baseline");
  if (baseScore === null) return none(`baseline ${baseline.id} is not verified with a score`);
  if (!sameTuple(tupleOf(bs!.manifest!), frozen)) {
    return none(`baseline ${baseline.id}'s tuple differs from the frozen one`);
  }
  const methods = plan.order.filter((id) => nodeOf(plan, id).role === "train")
    .filter((id) => state.nodes[id]!.spawned)
    .map((id) => judgeMethod(id, state.nodes[id]!, frozen, baseScore, dir));
  const detail = { ...head, baseline_score: baseScore, methods };
  const first = (o: MethodOutcome) => methods.find((m) => m.outcome === o);
  const best = (o: MethodOutcome, key: (m: MethodJudgement) => number | null) =>
    methods.reduce<MethodJudgement | undefined>((top, m) => {
      if (m.outcome !== o) return top;
      if (!top) return m;
      const a = key(m), b = key(top);
      return a !== null && (b === null || beats(a, b, dir)) ? m : top;
    }, undefined);
  const answered = best("answered", (m) => m.score);
  if (answered) {
    return {
      verdict: "RESEARCH ANSWERED",
      detail: { ...detail, method: answered.node, score: answered.score! },
    };
  }
  const withheld = first("withheld");
  if (withheld) {
    return {
      verdict: "RESULT WITHHELD",
      detail: { ...detail, method: withheld.node, cause: withheld.cause ?? "", baseline_stands: true },
    };
  }
  const negative = best("negative", (m) => m.best);
  if (negative) {
    return {
      verdict: "NEGATIVE RESULT",
      detail: {
        ...detail,
        method: negative.node,
        best_score: negative.best!,
        best_step: negative.best_step,
        status: negative.status,
      },
    };
  }
  const reason = methods.length
    ? methods.map((m) => `${m.node}: ${m.why}`).join("; ")
    : "no method reached a decidable state";
  return { verdict: "NO VERDICT", detail: { ...detail, reason } };
}

/** The method that answered the question, once one is verified, comparable and beats the verified baseline. */
export function answered(state: RunState): NodeId | null {
  const j = judge(state);
  return j.verdict === "RESEARCH ANSWERED" ? j.detail.method ?? null : null;
}
