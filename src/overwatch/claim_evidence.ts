/**
 * A refused claim as the supervisor records it: what the acceptance command and the worker said (clipped),
 * the claimed and previous scores, the lap it was on and, when it is the last, why. Pure: the supervisor
 * decides whether the claim bounces or fuses, this only writes the FALSE_COMPLETION evidence down.
 *
 * @module
 */
import type { CrashInfo, FalseCompletionEvidence } from "../model/evidence.ts";
import { ACCEPT_EPS } from "../thresholds.ts";

/** What SENSE saw of a claim that was refused, or of a worker that died before it claimed. */
export interface Claim {
  argv: string[];
  code: number | null;
  stdout: string;
  stderr: string;
  workerExit: number | null;
  score: number | null;
  problem?: string;
  crash?: CrashInfo;
  observedBest?: number;
  unreadMetricsBytes?: number;
  malformedMetricsLines?: number;
}

const clip = (s: string, n = 2000) => (s.length > n ? s.slice(0, n) + `… (${s.length - n} more chars)` : s);

/** The evidence of a refused claim on lap `lap` of `laps`; `exhausted` when it fuses. */
export function claimEvidence(
  claim: Claim,
  at: {
    previous: number | null;
    lap: number;
    laps: number;
    via: FalseCompletionEvidence["via"];
    exhausted: boolean;
  },
): FalseCompletionEvidence {
  return {
    acceptance: claim.argv,
    exit_code: claim.code,
    stdout: clip(claim.stdout),
    stderr: clip(claim.stderr, 600),
    worker_exit: claim.workerExit,
    claimed_score: claim.score,
    previous_claim: at.previous,
    required_gain: ACCEPT_EPS,
    lap: at.lap,
    lap_budget: at.laps,
    via: at.via,
    ...(claim.problem ? { problem: claim.problem } : {}),
    ...(claim.crash ? { crash: claim.crash } : {}),
    ...(claim.observedBest !== undefined ? { observed_best: claim.observedBest } : {}),
    ...(claim.unreadMetricsBytes ? { unread_metrics_bytes: claim.unreadMetricsBytes } : {}),
    ...(claim.malformedMetricsLines ? { malformed_metrics_lines: claim.malformedMetricsLines } : {}),
    ...(at.exhausted
      ? { reason: at.lap >= at.laps ? "lap budget exhausted" : "retry did not improve by ACCEPT_EPS" }
      : {}),
  };
}
