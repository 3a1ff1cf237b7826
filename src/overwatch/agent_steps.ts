/**
 * The scope detectors run in an agent's own time: each step the agent loop recorded (tokens, cost, the scope's
 * fingerprint after it) is one observation, so a spinner or an oscillator is caught after K_FREEZE steps
 * whether those steps took an hour or all fell inside one tick. Pure: trajectory and steps in, trajectory
 * and the first finding out.
 *
 * @module
 */
import type { AgentStepObs as AgentStep } from "../model/observe.ts";
import type { AgentTrack } from "../model/state.ts";
import { K_FREEZE } from "../thresholds.ts";
import { type ScopeTrack, trackScope } from "./detectors.ts";

export type StepFinding =
  | { kind: "oscillation"; trail: string[]; steps: number[] }
  | {
    kind: "spin";
    frozen: number;
    from: number;
    to: number;
    tokens: number;
    cost: number | null;
    fp: string;
  };

export function freshTrack(attempt: number, trail: readonly string[]): AgentTrack {
  return { attempt, step: 0, trailSteps: trail.map(() => 0), from: 0, tokens: 0, cost: null };
}

const addCost = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : a + b);

/**
 * Judges `steps` (in order) after `scope`/`track`; stops at the first finding, as the supervisor acts on it
 * and the rest of the attempt is over.
 */
export function trackSteps(
  scope: ScopeTrack,
  track: AgentTrack,
  steps: readonly AgentStep[],
): { scope: ScopeTrack; track: AgentTrack; finding: StepFinding | null } {
  let sc: ScopeTrack = { fp: scope.fp, trail: [...scope.trail], frozen: scope.frozen };
  let tr: AgentTrack = { ...track, trailSteps: [...track.trailSteps] };
  for (const s of steps) {
    if (s.step <= tr.step) continue;
    const t = trackScope(sc, s.fp, s.tokens);
    const trailSteps = t.fp !== sc.fp ? [...tr.trailSteps, s.step].slice(-3) : tr.trailSteps;
    const frozenRun = t.frozen === 0
      ? { from: 0, tokens: 0, cost: null }
      : t.frozen === 1
      ? { from: s.step, tokens: s.tokens, cost: s.cost }
      : { from: tr.from, tokens: tr.tokens + s.tokens, cost: addCost(tr.cost, s.cost) };
    sc = { fp: t.fp, trail: t.trail, frozen: t.frozen };
    tr = { attempt: tr.attempt, step: s.step, trailSteps, ...frozenRun };
    if (t.oscillation) {
      return {
        scope: sc,
        track: tr,
        finding: { kind: "oscillation", trail: t.oscillation, steps: trailSteps },
      };
    }
    if (t.frozen >= K_FREEZE) {
      const finding: StepFinding = {
        kind: "spin",
        frozen: t.frozen,
        from: tr.from,
        to: s.step,
        tokens: tr.tokens,
        cost: tr.cost,
        fp: t.fp,
      };
      return { scope: sc, track: tr, finding };
    }
  }
  return { scope: sc, track: tr, finding: null };
}

/**
 * An agent whose loop ended on its step limit while its scope was frozen (its last steps burned tokens and
 * changed nothing) was spinning, however few steps it had: the finding, else null.
 */
export function spunOut(scope: ScopeTrack, track: AgentTrack): StepFinding | null {
  if (scope.frozen < 1) return null;
  return {
    kind: "spin",
    frozen: scope.frozen,
    from: track.from,
    to: track.step,
    tokens: track.tokens,
    cost: track.cost,
    fp: scope.fp,
  };
}
