/**
 * Actions: what the pure step asks the runtime to do to the world. They are not persisted; everything they
 * depend on is in the state, which is how a resumed run knows what must be running.
 *
 * @module
 */
import type { NodeId } from "../graph/types.ts";

export type Action =
  /** Start an attempt. `fresh` clears the scope first; `resume` names a checkpoint to continue from. */
  | { a: "start"; node: NodeId; attempt: number; fresh: boolean; resume: string | null }
  /** Stop the node's process group (TERM, grace, KILL). */
  | { a: "stop"; node: NodeId }
  /** Keep a copy of a verified scope to revert foreign writes from. */
  | { a: "snapshot"; node: NodeId }
  /** Restore a scope from its snapshot. */
  | { a: "revert"; node: NodeId; paths: string[] };
