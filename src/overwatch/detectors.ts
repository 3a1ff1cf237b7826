/**
 * Detectors: pure functions from a node's remembered trajectory and this tick's observation to a new
 * trajectory and a finding. They judge world-state only (fingerprints, steps, scores) and never decide what
 * happens next; that is the supervisor's job.
 *
 * @module
 */
import type { Direction } from "../graph/types.ts";
import type { Ckpt } from "../model/state.ts";
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

export interface ProgressTrack {
  step: number;
  value: number | null;
  best: number | null;
  bestStep: number;
  stalled: number;
}

/** Progress of a long node: (step, best_dev) from new metric points; `hung` when frozen K_FREEZE ticks. */
export function trackProgress(
  prev: ProgressTrack,
  points: readonly { step: number; value: number }[],
  direction: Direction,
): ProgressTrack & { hung: boolean } {
  let { step, value, best, bestStep } = prev;
  for (const p of points) {
    step = p.step;
    value = p.value;
    if (best === null || (direction === "maximize" ? p.value > best : p.value < best)) {
      best = p.value;
      bestStep = p.step;
    }
  }
  const moved = step !== prev.step || best !== prev.best;
  // Until the attempt has written its first metric line (`value` is reset on every start), it is starting
  // up, not hanging; a trainer that never starts is caught by its tick budget.
  const stalled = moved || value === null ? 0 : prev.stalled + 1;
  return { step, value, best, bestStep, stalled, hung: stalled >= K_FREEZE };
}

/**
 * Plateau check at a checkpoint boundary: `flat` counts checkpoints in a row whose best_dev improved on
 * the previous checkpoint's by less than PLATEAU_EPS. It trips after PLATEAU_PATIENCE such checkpoints
 * while best_dev is still below target (a run that already beats the target is never a plateau).
 */
export function checkPlateau(
  prevCkptBest: number | null,
  best: number,
  flat: number,
  target: number | null,
  direction: Direction,
): { flat: number; plateau: boolean } {
  const next = prevCkptBest === null || improves(prevCkptBest, best, PLATEAU_EPS, direction) ? 0 : flat + 1;
  const belowTarget = target !== null && !beats(best, target, direction);
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
