/**
 * The escalation ladder and the rung each incident type starts on. A `Record` over the incident union,
 * so adding an incident type without a rung does not compile.
 *
 * @module
 */
import type { IncidentType } from "../graph/types.ts";
import type { Ladder } from "../model/state.ts";

export const RUNG: Readonly<Record<IncidentType, Ladder>> = {
  OSCILLATION_TRIP: "bounce",
  BUDGET_TRIP: "bounce",
  HUNG_RESTART: "bounce",
  FALSE_COMPLETION: "bounce",
  COMPARABILITY_BLOCK: "blame_routing",
  SCOPE_VIOLATION: "blame_routing",
  STALE_CASCADE: "downstream_invalidation",
  TAINT_INVALIDATION: "downstream_invalidation",
  PLATEAU_TRIP: "fuse",
  SUPERSEDED_KILL: "fuse",
};
