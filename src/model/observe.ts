/**
 * Observations: what SENSE read from the world in one tick. The step function sees nothing else, so a
 * tick's decisions are a pure function of (state, observations).
 *
 * @module
 */
import type { NodeId } from "../graph/types.ts";
import type { Request } from "./events.ts";
import type { CrashInfo } from "./evidence.ts";
import type { Manifest } from "./state.ts";

/** A write a node made (or tried to make) outside its scope, as a sandbox layer saw it. */
export interface EscapeObs {
  path: string;
  op: string;
  /**
   * Layer that saw it: Deno's permission audit, the bubblewrap shadow, the shadow of an unconfined
   * program's watch-only mount namespace, the fingerprint guard, or a read-only mount that refused it (seen
   * in what the program itself reported: `seen_in`).
   */
  via: "deno-audit" | "bwrap-shadow" | "namespace-shadow" | "guard" | "read-only mount";
  /** Where a refused write was seen, when no layer saw it itself ("the program's stderr"). */
  seen_in?: string;
  /** True when the write never landed (the sandbox refused it or caught it in a shadow). */
  stopped: boolean;
}

export interface DoneObs {
  /** Exit code of the worker process, null when a signal ended it. */
  exit: number | null;
  /** How it died, when it did not exit 0 (exit code, signal, last stderr lines). */
  crash?: CrashInfo;
  /** The acceptance gate's run (argv, exit code, output kept as evidence); null when the worker crashed. */
  accept: { argv: string[]; code: number; stdout: string; stderr: string } | null;
  /** results.json as read within limits, with only the fields the gates use. */
  manifest: Manifest | null;
  /** What was wrong with results.json (missing, too large, not JSON, a score that is not a number, …). */
  manifestError?: string;
  /** Best value of the protocol metric in the scope's metrics.jsonl, for nodes whose metrics are not
   * tracked tick by tick (fast and reactive nodes); null when they wrote none. */
  observedBest?: number | null;
  /** Bytes of a long node's metrics.jsonl left unread at its exit (past the drain's cap). */
  metricsUnread?: number;
  /** Lines of a long node's metrics.jsonl this attempt skipped as malformed (not JSON, no finite metric,
   * over the line cap): the observed best covers only the lines that could be read. */
  malformedLines?: number;
}

/** One agent step as the agent loop recorded it: each is an observation of the node in its own time. */
export interface AgentStepObs {
  step: number;
  /** Tokens and cost its API call reported (cost null when none was). */
  tokens: number;
  cost: number | null;
  /** The scope's content fingerprint after the step. */
  fp: string;
}

export interface NodeObs {
  /** Tokens burned this tick (since the last tick, whatever the pace of observation). */
  tokens: number;
  /**
   * On an observation: tokens burned since the node was last observed (real and live paths, where a node is
   * observed every `observe_every` but its tokens arrive every tick). Absent: the same as `tokens`.
   */
  burned?: number;
  /** Scope content fingerprint now. */
  fp: string;
  /** True when this tick is an observation of the node: every tick on the mock path, every
   * `observe_every` on the real path. Silence and frozen scopes are counted in observations. */
  observed: boolean;
  /** Wall time since the attempt started (real path only), for wall-clock budgets. */
  elapsedMs?: number;
  /** New metric points (step, value of the protocol metric). */
  metrics: { step: number; value: number }[];
  /** New checkpoint files, relative to the scope. */
  ckpts: { step: number; file: string }[];
  /** Stream events handed to the worker this tick (reactive nodes). */
  delivered: number;
  /** Indices (into the run's faults) of worker-side faults the worker reported as fired. */
  fired: number[];
  /** Set when the worker ended this tick (its completion claim, or its crash). */
  done?: DoneObs;
  /** Writes outside the scope this node was seen making. */
  escapes: EscapeObs[];
  /** Agent nodes: the steps the agent loop recorded since the last tick, in order (absent elsewhere). */
  steps?: AgentStepObs[];
  /** Agent nodes: how the loop ended, once it has (its own words, checked against the exit by nobody). */
  stepEnd?: { end: string; steps: number };
}

/** A change in the scope of a node that is not running (the fingerprint guard). */
export interface GuardObs {
  owner: NodeId;
  fp: string;
  changed: string[];
  /** Changed paths whose recorded content can be put back (kept in the blob store, or to be deleted). */
  restorable: string[];
}

export interface Observations {
  tick: number;
  nodes: Record<NodeId, NodeObs>;
  guard: GuardObs[];
  /** Running nodes with no sandbox layer (--unsandboxed): a write they make cannot be attributed. */
  unconfined: NodeId[];
  /**
   * The first look of this arrow at a run already under way (a resume): what changed since the last look may
   * have changed while no arrow watched, so no change seen now is blamed on the programs running now.
   */
  unwatched?: true;
  /** Operator requests (arrow reopen / taint) that arrived since the last tick. */
  requests: Request[];
  /**
   * The plan's evaluator and acceptance files found changed since the run started (absolute paths), each
   * put back or not: a write into the plan's own files that no sandbox layer saw.
   */
  planFiles?: PlanFileObs[];
}

/** A change in the plan's own files, or (unconfined runs) anywhere in the plan's directory. */
export interface PlanFileObs {
  path: string;
  /** Absent: a held file (the evaluator, an acceptance file) changed. */
  op?: "write" | "delete";
  /** True once the file holds its recorded content again (only held files can be put back). */
  restored: boolean;
  /**
   * The programs that could have made it, no sandbox layer confining them: the unconfined nodes running
   * since the last look, or the unconfined acceptance checks that just ran (absent: none could).
   */
  during?: NodeId[];
}

export function emptyNodeObs(fp: string): NodeObs {
  return { tokens: 0, fp, observed: true, metrics: [], ckpts: [], delivered: 0, fired: [], escapes: [] };
}

export function emptyObservations(tick: number): Observations {
  return { tick, nodes: {}, guard: [], unconfined: [], requests: [] };
}
