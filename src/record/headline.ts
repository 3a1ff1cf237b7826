/**
 * A run's headline for the run list, for both modes, from a state.json read unvalidated: a graph run's metric
 * and the score its verdict's judgement reads (the anytime report's own numbers); a tree run's metric and its
 * best artifact's final test once scored, else the incumbent's held-out score (the tree report's numbers).
 *
 * @module
 */
import type { RunState } from "../model/state.ts";
import { judge } from "../overwatch/verdict.ts";

export interface Headline {
  metric: string | null;
  score: number | null;
  score_of: ScoreOf | null;
}

/** What the score is: a graph run's answering method's, best or baseline's; a tree run's final test or held-out. */
export type ScoreOf = "method" | "best" | "baseline" | "final test" | "held-out";

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : {};

export function graphHeadline(state: Record<string, unknown>): Headline {
  const protocol = (state.plan as { protocol?: { metric?: unknown } } | undefined)?.protocol;
  const metric = typeof protocol?.metric === "string" ? protocol.metric.slice(0, 40) : null;
  let detail: Record<string, unknown>;
  try {
    // A malformed state (the server reads whatever is on disk) simply has no score.
    detail = judge(state as unknown as RunState).detail as unknown as Record<string, unknown>;
  } catch {
    return { metric, score: null, score_of: null };
  }
  for (
    const [k, of] of [["score", "method"], ["best_score", "best"], ["baseline_score", "baseline"]] as const
  ) {
    const v = num(detail[k]);
    if (v !== null) return { metric, score: v, score_of: of };
  }
  return { metric, score: null, score_of: null };
}

export function treeHeadline(state: Record<string, unknown>): Headline {
  const metric = obj(state.config).metric;
  const best = num(obj(state.final).best);
  const incumbent = typeof state.incumbent === "string" ? obj(obj(state.nodes)[state.incumbent]) : {};
  const heldout = num(incumbent.heldout);
  return {
    metric: typeof metric === "string" ? metric.slice(0, 40) : null,
    score: best ?? heldout,
    score_of: best !== null ? "final test" : heldout !== null ? "held-out" : null,
  };
}
