/**
 * Events: every change to the run state is one of these. A tick's events are appended to replay.jsonl, and
 * folding them over the initial state rebuilds state.json exactly. `status` and `incident` events are made
 * only by the supervisor (`overwatch/supervisor.ts`); a test holds every other module to that.
 *
 * @module
 */
import type { NodeId } from "../graph/types.ts";
import type { VerdictDetail } from "./judgement.ts";
import type { Incident, NodeState, RunState, Slot, Status, Tuple, Verdict } from "./state.ts";

/**
 * Node fields any room may set through a `note`. Status is deliberately absent (only the supervisor changes
 * it), and so are the lists that grow over a run (checkpoints, delivered stream events): those change by
 * their own events, so a tick's replay line carries what changed, never the whole list again.
 */
export type NodeNote = Partial<Omit<NodeState, "status" | "spawned" | "ckpts" | "delivered">>;

/** An operator's request (arrow reopen / arrow taint), sensed from the run directory and recorded. */
export interface Request {
  op: "reopen" | "taint";
  node: NodeId;
  reason: string;
  /** Sequence number of the request in the run's request file. */
  seq: number;
}

export type Event =
  | { e: "init"; state: RunState }
  | { e: "status"; node: NodeId; from: Status; to: Status }
  | { e: "incident"; incident: Incident }
  | { e: "spawn"; node: NodeId; by: NodeId }
  | { e: "note"; node: NodeId; set: NodeNote }
  | { e: "slot"; node: NodeId; slot: Slot; op: "hold" | "free" }
  | { e: "metric"; node: NodeId; step: number; value: number }
  /** A new checkpoint file: appended to the node's list. */
  | { e: "ckpt"; node: NodeId; step: number; file: string; dev?: number; best?: number }
  /** Checkpoints past `step` are dropped from the list (a resume from `step`; -1 clears it). */
  | { e: "rewind"; node: NodeId; step: number }
  /** A checkpoint delivered into a reactive node's inbox. */
  | { e: "stream"; from: NodeId; to: NodeId; step: number; file: string }
  /** The first `n` inbox items were handed to the worker. */
  | { e: "deliver"; node: NodeId; n: number }
  | { e: "fault"; index: number; kind: string; node: NodeId }
  | { e: "request"; request: Request }
  | { e: "freeze"; tuple: Tuple; by: NodeId }
  | { e: "report"; version: number }
  | { e: "verdict"; verdict: Verdict; detail: VerdictDetail };

/** One line of replay.jsonl. */
export interface ReplayLine {
  tick: number;
  events: Event[];
  /** Hash of the previous line's bytes (the chain that makes an edited, dropped or forged line visible). */
  prev?: string;
}
