/**
 * The plan's closed vocabularies, declared once as lists: the schema (plan_schema.ts) reads the lists and the
 * types (types.ts) are derived from them, so adding an incident type or a role is one line and every
 * `Record<IncidentType, …>` (the ladder, the evidence map) stops compiling until it has a case.
 *
 * @module
 */

/** A node's id in a plan. */
export type NodeId = string;

export const NODE_KINDS = ["fast", "long", "reactive"] as const;
export const EDGE_KINDS = ["artifact", "stream", "back_edge"] as const;
export const ROLES = [
  "protocol",
  "data",
  "harness",
  "baseline",
  "train",
  "eval",
  "analysis",
  "report",
  "ablation",
  "other",
] as const;
export const INCIDENT_TYPES = [
  "OSCILLATION_TRIP",
  "BUDGET_TRIP",
  "HUNG_RESTART",
  "PLATEAU_TRIP",
  "SUPERSEDED_KILL",
  "FALSE_COMPLETION",
  "COMPARABILITY_BLOCK",
  "SCOPE_VIOLATION",
  "STALE_CASCADE",
  "TAINT_INVALIDATION",
] as const;
export const PROFILE_SHAPES = ["rise_cross", "rise_plateau", "flat", "curve"] as const;
export const RUNTIMES = ["local", "slurm"] as const;
