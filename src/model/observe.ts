/**
 * Observations: what SENSE read from the world in one tick. The step function sees nothing else, so a
 * tick's decisions are a pure function of (state, observations).
 *
 * @module
 */
import type { NodeId } from "../graph/types.ts";
import type { Manifest } from "../model/state.ts";

/** A write a node made (or tried to make) outside its scope, as a sandbox layer saw it. */
export interface EscapeObs {
  path: string;
  op: string;
  /** Layer that saw it: Deno's permission audit, the bubblewrap shadow, or the fingerprint guard. */
  via: "deno-audit" | "bwrap-shadow" | "guard";
  /** True when the write never landed (the sandbox refused it). */
  stopped: boolean;
}

export interface DoneObs {
  /** Exit code of the worker process, null when a signal ended it. */
  exit: number | null;
  /** The acceptance gate's run: argv, exit code and output kept as evidence. */
  accept: { argv: string[]; code: number; stdout: string; stderr: string };
  manifest: Manifest | null;
  /** Why results.json could not be read, when it could not. */
  manifestError?: string;
}

export interface NodeObs {
  /** Tokens burned this tick. */
  tokens: number;
  /** Scope content fingerprint now. */
  fp: string;
  /** New metric points (step, value of the protocol metric). */
  metrics: { step: number; value: number }[];
  /** New checkpoint files, relative to the scope. */
  ckpts: { step: number; file: string }[];
  /** Stream events handed to the worker this tick (reactive nodes). */
  delivered: number;
  /** Set when the worker ended this tick (its completion claim). */
  done?: DoneObs;
  /** Writes outside the scope this node was seen making. */
  escapes: EscapeObs[];
}

/** A change in the scope of a node that is not running (the fingerprint guard). */
export interface GuardObs {
  owner: NodeId;
  fp: string;
  changed: string[];
}

export interface Observations {
  tick: number;
  nodes: Record<NodeId, NodeObs>;
  guard: GuardObs[];
}

export function emptyNodeObs(fp: string): NodeObs {
  return { tokens: 0, fp, metrics: [], ckpts: [], delivered: 0, escapes: [] };
}
