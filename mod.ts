/**
 * Arrow as a library: plans (load, validate, normalize), the run state and its events, the pure tick step,
 * the engine that drives real workers, the verdict, and the pinned thresholds. Re-exports only.
 *
 * @module
 */
export * from "./src/graph/mod.ts";
export type { Fault, ScenarioFile } from "./src/graph/scenario.ts";
export { loadFaults, loadScenario } from "./src/graph/scenario.ts";
export type * from "./src/model/state.ts";
export type { Event, NodeNote, ReplayLine } from "./src/model/events.ts";
export type { Observations } from "./src/model/observe.ts";
export { apply, applyTick, fold } from "./src/model/reduce.ts";
export { initialState, STATUSES, TERMINAL } from "./src/model/state.ts";
export { step } from "./src/engine/step.ts";
export type { StepResult } from "./src/engine/step.ts";
export { prepare } from "./src/engine/prepare.ts";
export { drive, startRun } from "./src/engine/run.ts";
export type { EngineOptions } from "./src/engine/run.ts";
export { judge } from "./src/overwatch/verdict.ts";
export { checkComparability } from "./src/gates/comparability.ts";
export { renderReport } from "./src/record/report.ts";
export { narrate } from "./src/record/narrate.ts";
export { finalState, parseReplay } from "./src/record/replay.ts";
export * from "./src/thresholds.ts";
