/**
 * Signs of life from long fits. A child process that fits a model says nothing until a fold ends, and a fold
 * on many rows, classes or stages can outlast the hang clock that watches it (K_FREEZE observations of
 * silence); the fitting loops call `alive()` once a stage or solver step, and a process that is watched sets
 * `onAlive` to turn those calls into lines of its progress log (throttled there). Unset, it costs a call.
 *
 * @module
 */

let hook: (() => void) | null = null;

/** Sets (or, with null, clears) what `alive()` calls. */
export function onAlive(fn: (() => void) | null): void {
  hook = fn;
}

/** Called by fitting loops between units of work (a boosting stage, a solver step). */
export function alive(): void {
  if (hook) hook();
}
