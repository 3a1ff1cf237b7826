/**
 * The overwatch's pinned thresholds. They are law: no plan, scenario or flag can override them, which is
 * why this leaf module exports constants only and every room imports them from here.
 *
 * @module
 */

/** Consecutive ticks a scope (or a long node's step) may stay frozen before it trips. */
export const K_FREEZE = 3;
/** Minimum improvement of best_dev between checkpoints that still counts as progress. */
export const PLATEAU_EPS = 0.005;
/** Checkpoints in a row without progress (below target) before a plateau trips. */
export const PLATEAU_PATIENCE = 2;
/** Restarts a hung long node gets before it is fused. */
export const HUNG_MAX_RESTARTS = 1;
/** Largest lap budget of a metered loop; also the retry budget of a false completion. */
export const ACCEPT_MAX_LAPS = 3;
/** Minimum improvement a retried claim must show over the previous lap. */
export const ACCEPT_EPS = 0.003;

/** Scores are compared on a grid of this many units per 1.0, so 0.605 − 0.600 counts as exactly 0.005. */
export const SCORE_GRID = 1e9;

/** Improvement of `next` over `prev` in grid units, positive when better under `direction`. */
export function gain(prev: number, next: number, direction: "maximize" | "minimize"): number {
  const d = Math.round(next * SCORE_GRID) - Math.round(prev * SCORE_GRID);
  return direction === "maximize" ? d : -d;
}

/** True when `next` improves on `prev` by at least `eps` (compared on the score grid). */
export function improves(
  prev: number,
  next: number,
  eps: number,
  direction: "maximize" | "minimize",
): boolean {
  return gain(prev, next, direction) >= Math.round(eps * SCORE_GRID);
}
