/**
 * The run state: one serialisable value holding everything the engine knows. `state.json` is this value;
 * replay, crash-resume and the dashboard all rebuild it by folding events (see `reduce.ts`).
 *
 * Persisted status strings never change meaning.
 *
 * @module
 */
import type { IncidentType, NodeId, Plan } from "../graph/types.ts";

export type Status =
  | "pending"
  | "running"
  | "verified"
  | "stale"
  | "blocked"
  | "stuck"
  | "oscillating"
  | "plateaued"
  | "superseded"
  | "killed";

export const STATUSES: readonly Status[] = [
  "pending",
  "running",
  "verified",
  "stale",
  "blocked",
  "stuck",
  "oscillating",
  "plateaued",
  "superseded",
  "killed",
];

/** Statuses a node never leaves on its own (only a reopen or taint can bring it back). */
export const TERMINAL: ReadonlySet<Status> = new Set([
  "verified",
  "blocked",
  "plateaued",
  "superseded",
  "killed",
]);

export type Ladder = "bounce" | "blame_routing" | "downstream_invalidation" | "graph_surgery" | "fuse";
export const LADDER: readonly Ladder[] = [
  "bounce",
  "blame_routing",
  "downstream_invalidation",
  "graph_surgery",
  "fuse",
];

export type Verdict = "RESEARCH ANSWERED" | "NEGATIVE RESULT" | "RESULT WITHHELD" | "NO VERDICT";
export type Mode = "mock" | "real" | "live";
export type Slot = "gpu" | "cpu";

/** The comparability four-tuple. Compared as strings and integers, never as floats. */
export interface Tuple {
  data_hash: string;
  split_hash: string;
  protocol_version: string;
  seed: number;
}

/** results.json: the only thing the gates read. */
export interface Manifest extends Partial<Tuple> {
  node: string;
  metric?: string;
  score?: number;
  code_sha?: string;
  wall_s?: number;
  artifact?: string;
}

export interface Ckpt {
  step: number;
  file: string;
  /** Dev metric at the checkpoint's step, when the metrics file had it. */
  dev?: number;
  /** best_dev when the checkpoint appeared (what the plateau detector compares). */
  best?: number;
}

export interface StreamEvent {
  from: NodeId;
  step: number;
  file: string;
}

export interface Incident {
  tick: number;
  type: IncidentType;
  node: NodeId;
  ladder: Ladder;
  evidence: Record<string, unknown>;
  laps: number;
  tokens: number;
}

export interface NodeState {
  status: Status;
  spawned: boolean;
  /** Attempts started (fresh starts, restarts and retries). */
  attempt: number;
  /** Bounces spent against the lap budget. */
  lap: number;
  /** Hung restarts spent. */
  restarts: number;
  /** Tick the current attempt was started on. */
  started: number;
  /** Tokens burned in all attempts. */
  tokens: number;
  /** Content fingerprint of the scope at the end of the last tick. */
  fp: string;
  /** Last distinct fingerprints, oldest first (at most three). */
  trail: string[];
  /** Consecutive ticks the scope stayed frozen while tokens burned. */
  frozen: number;
  /** Long nodes: last step seen, best dev so far and the step it was reached at. */
  step: number;
  value: number | null;
  best: number | null;
  bestStep: number;
  /** Consecutive ticks (step, best) stayed unchanged. */
  stalled: number;
  ckpts: Ckpt[];
  /** Checkpoints in a row that improved best_dev by less than PLATEAU_EPS. */
  flat: number;
  /** Reactive nodes: events waiting to be delivered, events delivered in this attempt, finish requested. */
  inbox: StreamEvent[];
  delivered: StreamEvent[];
  finishing: boolean;
  /** Accepted manifest (set on verification). */
  manifest: Manifest | null;
  /** Score claimed by the last refused completion, to meter retries. */
  claim: number | null;
  /** Incident that put the node in its current overwatch status. */
  cause: IncidentType | null;
  /** Checkpoint the next start resumes from. */
  resume: string | null;
  /** Checkpoint the current attempt resumed from (what a crash-resumed worker starts from again). */
  from: string | null;
  /** Kill pending for the next checkpoint boundary. */
  killAtCkpt: "SUPERSEDED_KILL" | null;
}

/** A fault the engine itself injects (the rest travel to workers in their config). */
export interface EngineFault {
  kind: "reopen" | "taint";
  node: NodeId;
  when: "green" | number;
  fired: boolean;
}

export interface RunState {
  v: 1;
  scenario: string;
  mode: Mode;
  tick: number;
  plan: Plan;
  faults: EngineFault[];
  /** Worker-side faults, by node, handed to workers in their config. */
  workerFaults: Record<NodeId, Record<string, unknown>[]>;
  nodes: Record<NodeId, NodeState>;
  slots: Record<Slot, { total: number; held: NodeId[] }>;
  /** The frozen comparability tuple and the node that froze it. */
  frozen: (Tuple & { by: NodeId }) | null;
  incidents: number;
  report: number;
  verdict: Verdict | null;
  quiesced: number | null;
}

export const EMPTY_FP = "empty";

export function initialNode(spawned: boolean): NodeState {
  return {
    status: "pending",
    spawned,
    attempt: 0,
    lap: 0,
    restarts: 0,
    started: 0,
    tokens: 0,
    fp: EMPTY_FP,
    trail: [],
    frozen: 0,
    step: 0,
    value: null,
    best: null,
    bestStep: 0,
    stalled: 0,
    ckpts: [],
    flat: 0,
    inbox: [],
    delivered: [],
    finishing: false,
    manifest: null,
    claim: null,
    cause: null,
    resume: null,
    from: null,
    killAtCkpt: null,
  };
}

export function initialState(
  plan: Plan,
  opts: {
    scenario: string;
    mode: Mode;
    faults?: EngineFault[];
    workerFaults?: Record<NodeId, Record<string, unknown>[]>;
  },
): RunState {
  return {
    v: 1,
    scenario: opts.scenario,
    mode: opts.mode,
    tick: 0,
    plan,
    faults: opts.faults ?? [],
    workerFaults: opts.workerFaults ?? {},
    nodes: Object.fromEntries(plan.nodes.map((n) => [n.id, initialNode(!n.spawn_only)])),
    slots: { gpu: { total: plan.slots.gpu, held: [] }, cpu: { total: plan.slots.cpu, held: [] } },
    frozen: null,
    incidents: 0,
    report: 0,
    verdict: null,
    quiesced: null,
  };
}
