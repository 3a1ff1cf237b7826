/**
 * The one constructor of an incident record, for both modes: the graph path's supervisor and tree mode's
 * overwatch raise incidents through it, so a tree executor's SCOPE_VIOLATION or HUNG_RESTART has the graph
 * path's type, rung (the ladder's default unless the caller names another) and evidence shape, and the
 * narration, report and dashboard read them unchanged.
 *
 * @module
 */
import type { EvidenceMap, SurgeryEvidence } from "../model/evidence.ts";
import type { Incident, IncidentOf, Ladder } from "../model/state.ts";
import type { IncidentType, NodeId } from "../graph/types.ts";
import { RUNG } from "./ladder.ts";

/** Where and when an incident happens: the tick, the node, the laps it had spent and the tokens it burnt. */
export interface IncidentAt {
  tick: number;
  node: NodeId;
  laps: number;
  tokens: number;
}

export function incidentOf<T extends IncidentType>(
  at: IncidentAt,
  type: T,
  evidence: EvidenceMap[T] | SurgeryEvidence,
  ladder: Ladder = RUNG[type],
): Incident {
  const incident: IncidentOf<T> = {
    tick: at.tick,
    type,
    node: at.node,
    ladder,
    evidence,
    laps: at.laps,
    tokens: at.tokens,
  };
  return incident as unknown as Incident;
}
