/**
 * Detectors: pure functions from a node's remembered trajectory and this tick's observation to a new
 * trajectory and a finding. They judge world-state only (fingerprints, steps, scores) and never decide what
 * happens next; that is the supervisor's job.
 *
 * @module
 */
import type { Direction } from "../graph/types.ts";
import type { Ckpt, NodeState } from "../model/state.ts";
import { gain, improves, K_FREEZE, PLATEAU_EPS, PLATEAU_PATIENCE } from "../thresholds.ts";

export interface ScopeTrack {
  fp: string;
  trail: string[];
  frozen: number;
}

/**
 * Scope fingerprint tracking for fast nodes. `frozen` counts consecutive ticks the fingerprint stayed the
 * same while tokens burned; a tick that burns nothing resets it. An A→B→A trail is an oscillation.
 */
export function trackScope(prev: ScopeTrack, fp: string, tokens: number): ScopeTrack & {
  oscillation: string[] | null;
  stuck: boolean;
} {
  const changed = fp !== prev.fp;
  const trail = changed ? [...prev.trail, fp].slice(-3) : prev.trail;
  const frozen = changed ? 0 : tokens > 0 ? prev.frozen + 1 : 0;
  const [a, b, c] = trail;
  const oscillation = changed && trail.length === 3 && a === c && a !== b ? [...trail] : null;
  return { fp, trail, frozen, oscillation, stuck: frozen >= K_FREEZE };
}

/** A long node's trajectory as the state keeps it: last step, value, best, stalled observations. */
export type ProgressTrack = Pick<NodeState, "step" | "value" | "best" | "bestStep" | "stalled" | "seen">;

/** Step, value and best after `points`, starting from `prev` (best in the protocol's direction). */
export function advance(
  prev: Pick<ProgressTrack, "step" | "value" | "best" | "bestStep">,
  points: readonly { step: number; value: number }[],
  direction: Direction,
): Pick<ProgressTrack, "step" | "value" | "best" | "bestStep"> {
  let { step, value, best, bestStep } = prev;
  for (const p of points) {
    step = p.step;
    value = p.value;
    if (best === null || (direction === "maximize" ? p.value > best : p.value < best)) {
      best = p.value;
      bestStep = p.step;
    }
  }
  return { step, value, best, bestStep };
}

/**
 * Progress of a long node. Metric points always advance (step, best); the stall count moves only at an
 * observation — every tick on the mock path, every `observe_every` on the real path — so silence is
 * counted in observations, and a node that never writes a metric line at all is as silent as one that
 * stopped: `hung` after K_FREEZE observations without a new (step, best).
 */
export function trackProgress(
  prev: ProgressTrack,
  points: readonly { step: number; value: number }[],
  direction: Direction,
  observed = true,
): ProgressTrack & { hung: boolean } {
  const next = advance(prev, points, direction);
  if (!observed) return { ...next, stalled: prev.stalled, seen: prev.seen, hung: false };
  const moved = prev.seen === null || next.step !== prev.seen.step || next.best !== prev.seen.best;
  const stalled = moved ? 0 : prev.stalled + 1;
  return { ...next, stalled, seen: { step: next.step, best: next.best }, hung: stalled >= K_FREEZE };
}

/**
 * Plateau check at a checkpoint boundary: `flat` counts checkpoints in a row whose best_dev improved on
 * the previous checkpoint's by less than PLATEAU_EPS. It trips after PLATEAU_PATIENCE such checkpoints
 * while best_dev is still strictly below target (a run that reaches the target is never a plateau).
 */
export function checkPlateau(
  prevCkptBest: number | null,
  best: number,
  flat: number,
  target: number | null,
  direction: Direction,
): { flat: number; plateau: boolean } {
  const next = prevCkptBest === null || improves(prevCkptBest, best, PLATEAU_EPS, direction) ? 0 : flat + 1;
  // Exactly at target is not below it: only a target strictly better than best makes a plateau.
  const belowTarget = target !== null && beats(target, best, direction);
  return { flat: next, plateau: next >= PLATEAU_PATIENCE && belowTarget };
}

/** The checkpoint with the best dev score (earliest on ties); undefined when none has a score. */
export function bestCheckpoint(ckpts: readonly Ckpt[], direction: Direction): Ckpt | undefined {
  let best: Ckpt | undefined;
  for (const c of ckpts) {
    if (c.dev === undefined) continue;
    if (!best || (direction === "maximize" ? c.dev > best.dev! : c.dev < best.dev!)) best = c;
  }
  return best;
}

/** True when `score` beats `baseline` under `direction` (strictly, on the score grid). */
export function beats(score: number, baseline: number, direction: Direction): boolean {
  return gain(baseline, score, direction) > 0;
}
