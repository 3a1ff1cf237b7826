/**
 * Events: every change to the run state is one of these. A tick's events are appended to replay.jsonl, and
 * folding them over the initial state rebuilds state.json exactly. `status` and `incident` events are made
 * only by the supervisor (`overwatch/supervisor.ts`); a test holds every other module to that.
 *
 * @module
 */
import type { NodeId } from "../graph/types.ts";
import type { Incident, NodeState, RunState, Slot, Status, Tuple, Verdict } from "./state.ts";

/** Node fields any room may set through a `note`; status is deliberately absent. */
export type NodeNote = Partial<Omit<NodeState, "status" | "spawned">>;

export type Event =
  | { e: "init"; state: RunState }
  | { e: "status"; node: NodeId; from: Status; to: Status }
  | { e: "incident"; incident: Incident }
  | { e: "spawn"; node: NodeId; by: NodeId }
  | { e: "note"; node: NodeId; set: NodeNote }
  | { e: "slot"; node: NodeId; slot: Slot; op: "hold" | "free" }
  | { e: "metric"; node: NodeId; step: number; value: number }
  | { e: "ckpt"; node: NodeId; step: number; file: string }
  | { e: "stream"; from: NodeId; to: NodeId; step: number; file: string }
  | { e: "fault"; index: number; kind: string; node: NodeId }
  | { e: "freeze"; tuple: Tuple; by: NodeId }
  | { e: "report"; version: number }
  | { e: "verdict"; verdict: Verdict; detail: Record<string, unknown> };

/** One line of replay.jsonl. */
export interface ReplayLine {
  tick: number;
  events: Event[];
}
