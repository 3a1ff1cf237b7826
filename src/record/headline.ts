/**
 * A graph run's headline for the run list: its metric and the score its verdict's judgement reads (the
 * anytime report's own numbers), from a state.json read unvalidated.
 *
 * @module
 */
import type { RunState } from "../model/state.ts";
import { judge } from "../overwatch/verdict.ts";

export interface Headline {
  metric: string | null;
  score: number | null;
  /** What the score is: the answering method's, the best one reached, or the baseline's. */
  score_of: "method" | "best" | "baseline" | null;
}

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

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
