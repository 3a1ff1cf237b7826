/**
 * Defaults that keep a run moving when a plan says nothing: how often a node is observed on the real path
 * and the budgets that stop a node that stalls silently. Unlike the thresholds these are not law: a plan
 * sets its own per node (`observe_every`, `budget`).
 *
 * @module
 */
import type { PlanNode } from "../graph/types.ts";
import type { Mode } from "./state.ts";

/** Real path: a node is observed every 10 s unless it says otherwise, so HUNG means ~30 s of silence. */
export const DEFAULT_OBSERVE_MS = 10_000;
/** Mock path: ticks a fast node's attempt may take when it has no budget (at least 3× its scripted work). */
export const DEFAULT_FAST_TICKS = 100;
/** Real path: wall time a fast node's attempt may take when it has no budget. */
export const DEFAULT_FAST_WALL_MS = 30 * 60_000;
/** Ticks a reactive node may take to finish once its sources are done. */
export const DEFAULT_FINISH_TICKS = 600;

/** The tick budget that applies to an attempt of `node` (its own, else the mock default for fast nodes). */
export function tickBudget(node: PlanNode, mode: Mode): { limit: number; own: boolean } | null {
  if (node.budget.ticks !== undefined) return { limit: node.budget.ticks, own: true };
  if (mode === "mock" && node.kind === "fast") {
    return { limit: Math.max(DEFAULT_FAST_TICKS, 3 * (node.mock.ticks ?? 1)), own: false };
  }
  return null;
}

/** The wall-clock budget of an attempt on the real path, in milliseconds. */
export function wallBudget(node: PlanNode, mode: Mode): number | null {
  if (mode === "mock") return null;
  return node.budget.wall_ms ?? (node.kind === "fast" ? DEFAULT_FAST_WALL_MS : null);
}
