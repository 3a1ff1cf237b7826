/**
 * The shape of a verdict's judgement (made by overwatch/verdict.ts): which method the verdict rests on and
 * how every method fared, so that the report, the terminal and the dashboard render the same facts.
 *
 * @module
 */
import type { Direction, NodeId } from "../graph/types.ts";
import type { Verdict } from "./state.ts";

export type MethodOutcome = "answered" | "withheld" | "negative" | "undecided";

export interface MethodJudgement {
  node: NodeId;
  outcome: MethodOutcome;
  status: string;
  cause: string | null;
  /** The verified score, when the method is verified and comparable. */
  score: number | null;
  /** The best score the method reached by any evidence (verified, else best observed metric). */
  best: number | null;
  best_step: number;
  /** Why the method decides nothing, or what withheld it. */
  why: string;
}

export interface VerdictDetail {
  metric: string;
  direction: Direction;
  baseline: NodeId | null;
  baseline_score: number | null;
  /** The method the verdict rests on. */
  method?: NodeId;
  score?: number;
  best_score?: number;
  best_step?: number;
  status?: string;
  cause?: string;
  baseline_stands?: boolean;
  reason?: string;
  methods: MethodJudgement[];
}

export interface Judgement {
  verdict: Verdict;
  detail: VerdictDetail;
}
