/**
 * The lane a started worker is told it has — its node, role, scope, what it may read and the protocol it
 * measures under — declared once for every worker kind. The engine's launcher fills it from the plan
 * (runtime/backend/worker_config.ts); the config a Deno or command worker reads (workers/lib/config.ts) and
 * the one an agent reads (llm/config.ts) both extend it.
 *
 * @module
 */
import type { NodeKind } from "./types.ts";

export interface InputRef {
  /** Absolute path of the input node's scope (read-only for the worker). */
  scope: string;
  role: string;
}

/** The frozen comparability tuple (seed's four fields), once a measurement froze it. */
export interface ComparabilityTuple {
  data_hash: string;
  split_hash: string;
  protocol_version: string;
  seed: number;
}

export interface LaneConfig {
  node: string;
  role: string;
  kind: NodeKind;
  /** Absolute path of the node's scope: its working directory and only writable place. */
  scope: string;
  /** Absolute path of the run's nodes/ directory. */
  nodes: string;
  /** Artifact parents, read-only. */
  inputs: Record<string, InputRef>;
  /** Stream sources, read-only. */
  sources: Record<string, InputRef>;
  protocol: { version: string; metric: string; direction: "maximize" | "minimize" };
  /** 1-based attempt of the node; a restart after `arrow resume` keeps it. */
  attempt: number;
  /** Lap of the metered loop this attempt runs in (1 on the first). */
  lap: number;
  /** Absolute path of the checkpoint to resume from, on a restart. */
  resume: string | null;
}
