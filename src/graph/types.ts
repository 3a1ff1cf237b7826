/**
 * Plan types: the file as written (`PlanFile`, proven equal to the schema by a test) and the resolved,
 * validated `Plan` the engine runs (defaults filled, edges normalized, order fixed).
 *
 * @module
 */
import type { SweepGroup, SweepSpec } from "./sweep_types.ts";
import type {
  EDGE_KINDS,
  INCIDENT_TYPES,
  NODE_KINDS,
  NodeId,
  PROFILE_SHAPES,
  ROLES,
  RUNTIMES,
} from "./vocabulary.ts";

export type { NodeId };

export type NodeKind = typeof NODE_KINDS[number];
export type EdgeKind = typeof EDGE_KINDS[number];
export type Direction = "maximize" | "minimize";
export type Runtime = typeof RUNTIMES[number];
export type Role = typeof ROLES[number];
export type IncidentType = typeof INCIDENT_TYPES[number];
export type ProfileShape = typeof PROFILE_SHAPES[number];

export interface TrainerProfile {
  shape: ProfileShape;
  stages?: number;
  stages_per_tick?: number;
  ckpt_every?: number;
  start?: number;
  peak?: number;
  tau?: number;
  freeze_at?: number;
  values?: number[];
}

export interface MockSpec {
  ticks?: number;
  tokens?: number;
  score?: number;
  profile?: TrainerProfile;
}

export type WorkerSpec =
  | { type: "command"; argv: string[]; env?: Record<string, string> }
  | { type: "builtin"; name: string; args?: Record<string, string | number | boolean> }
  | { type: "agent"; prompt: string; model?: string; max_steps?: number };

export interface Budget {
  ticks?: number;
  tokens?: number;
  wall?: string;
}

/**
 * Per-job Slurm options a plan may set on a node, normalised by `checkSlurmOptions` (graph/validate_slurm.ts)
 * to the form sbatch accepts — the one definition the plan, the validator and the Slurm backend share.
 */
export interface SlurmOptions {
  partition?: string;
  /** Normalised Slurm time limit ("90", "01:30:00", "2-00:00:00", "UNLIMITED"). */
  time?: string;
  /** Normalised memory per node ("4G", "512M"). */
  mem?: string;
  account?: string;
  /** Generic resources ("gpu:1", "gpu:a100:2,shard:1"). */
  gres?: string;
  /** CPUs for the one task of the job. */
  cpus?: number;
  qos?: string;
}

export interface PlanNodeFile {
  id: string;
  title?: string;
  kind: NodeKind;
  role: Role;
  scope?: string;
  mock?: MockSpec;
  worker?: WorkerSpec;
  acceptance?: string[];
  spawn_only?: boolean;
  can_spawn?: boolean;
  spawn_on?: IncidentType[];
  budget?: Budget;
  observe_every?: string;
  slurm?: SlurmOptions;
  sweep?: SweepSpec;
}

export interface PlanEdgeFile {
  from: string;
  to: string;
  kind: EdgeKind;
  laps?: number;
}

export interface ProtocolSpec {
  version: string;
  metric: string;
  direction: Direction;
  target?: number;
  seed?: number;
  evaluate?: string[];
}

/** A plan as written in YAML. */
export interface PlanFile {
  question: string;
  protocol: ProtocolSpec;
  resources?: { slots?: { gpu?: number; cpu?: number }; runtime?: Runtime };
  nodes: PlanNodeFile[];
  edges?: PlanEdgeFile[];
}

/** A node with every default filled in. */
export interface PlanNode {
  id: NodeId;
  title: string;
  kind: NodeKind;
  role: Role;
  scope: string;
  mock: MockSpec;
  worker?: WorkerSpec;
  acceptance: string[];
  spawn_only: boolean;
  can_spawn: boolean;
  spawn_on: IncidentType[];
  /** Budgets per attempt; `wall_ms` is `budget.wall` in milliseconds. */
  budget: { ticks?: number; tokens?: number; wall_ms?: number };
  /** Wall-clock pace of observation on the real path, in milliseconds (undefined: the default). */
  observe_ms?: number;
  slurm?: SlurmOptions;
  /** Expanded before the run (engine/prepare.ts): the node becomes one sibling per configuration. */
  sweep?: SweepSpec;
}

export interface PlanEdge {
  from: NodeId;
  to: NodeId;
  kind: EdgeKind;
  /** Lap budget; set on every back_edge. */
  laps?: number;
  /** True when the normalizer demoted an undeclared artifact 2-cycle edge to this back_edge. */
  demoted?: boolean;
}

/** A validated, normalized plan: what the engine runs. */
export interface Plan {
  question: string;
  protocol: ProtocolSpec;
  slots: { gpu: number; cpu: number };
  runtime: Runtime;
  nodes: PlanNode[];
  edges: PlanEdge[];
  /** Topological order over artifact edges, ties broken lexicographically. */
  order: NodeId[];
  /** Sweeps expanded into configuration nodes (absent when the plan has none or is not expanded yet). */
  sweeps?: SweepGroup[];
  /** Absolute directory of the plan file, when it came from one: argv words name files relative to it. */
  dir?: string;
}

export const DEFAULT_SLOTS = { gpu: 1, cpu: 3 } as const;
export const DEFAULT_ACCEPTANCE = ["@manifest"] as const;
