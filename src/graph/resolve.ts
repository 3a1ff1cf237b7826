/**
 * Turns a checked plan file into the resolved `Plan` the engine runs: every default filled in, durations in
 * milliseconds, scopes normalized. Pure; called by the loader once the file has no errors.
 *
 * @module
 */
import { ACCEPT_MAX_LAPS } from "../thresholds.ts";
import {
  DEFAULT_ACCEPTANCE,
  DEFAULT_SLOTS,
  type NodeId,
  type Plan,
  type PlanEdge,
  type PlanFile,
  type PlanNode,
  type PlanNodeFile,
} from "./types.ts";
import { resolveScope } from "./validate.ts";

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** Milliseconds of a duration string ("500ms", "30s", "10m", "2h"); undefined when it is not one. */
export function durationMs(text: string): number | undefined {
  const m = /^([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)$/.exec(text);
  if (!m) return undefined;
  const ms = Math.round(Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS]);
  return Number.isFinite(ms) ? ms : undefined;
}

export function resolveNode(n: PlanNodeFile): PlanNode {
  const wall = n.budget?.wall !== undefined ? durationMs(n.budget.wall) : undefined;
  const observe = n.observe_every !== undefined ? durationMs(n.observe_every) : undefined;
  const budget: PlanNode["budget"] = {
    ...(n.budget?.ticks !== undefined ? { ticks: n.budget.ticks } : {}),
    ...(n.budget?.tokens !== undefined ? { tokens: n.budget.tokens } : {}),
    ...(wall !== undefined ? { wall_ms: wall } : {}),
  };
  return {
    id: n.id,
    title: n.title ?? n.id,
    kind: n.kind,
    role: n.role,
    scope: resolveScope(n.scope ?? n.id)!,
    mock: n.mock ?? {},
    ...(n.worker ? { worker: n.worker } : {}),
    acceptance: n.acceptance ?? [...DEFAULT_ACCEPTANCE],
    spawn_only: n.spawn_only ?? false,
    can_spawn: n.can_spawn ?? false,
    spawn_on: n.spawn_on ?? (n.spawn_only ? ["PLATEAU_TRIP"] : []),
    budget,
    ...(observe !== undefined ? { observe_ms: Math.max(1, observe) } : {}),
    ...(n.slurm ? { slurm: n.slurm } : {}),
    ...(n.sweep ? { sweep: n.sweep } : {}),
  };
}

/** The resolved plan, given the normalizer's edges and order. */
export function resolvePlan(
  raw: PlanFile,
  norm: { edges: readonly PlanEdge[]; order: readonly NodeId[] },
): Plan {
  return {
    question: raw.question,
    protocol: raw.protocol,
    slots: { ...DEFAULT_SLOTS, ...raw.resources?.slots },
    runtime: raw.resources?.runtime ?? "local",
    nodes: raw.nodes.map(resolveNode),
    edges: norm.edges.map((e) =>
      e.kind === "back_edge" && e.laps === undefined ? { ...e, laps: ACCEPT_MAX_LAPS } : { ...e }
    ),
    order: [...norm.order],
  };
}
