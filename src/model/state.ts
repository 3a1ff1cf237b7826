/**
 * The run state: one serialisable value holding everything the engine knows. `state.json` is this value;
 * replay, crash-resume and the dashboard all rebuild it by folding events (see `reduce.ts`).
 *
 * Persisted status strings never change meaning.
 *
 * @module
 */
import type { IncidentType, NodeId, Plan } from "../graph/types.ts";
import type { EvidenceMap, SurgeryEvidence } from "./evidence.ts";

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
  /** A few small scalar fields the worker added (kept for the report; never read by a gate). */
  extra?: Record<string, string | number | boolean>;
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

/** One overwatch action in the black box, its evidence typed by its incident type. */
export type IncidentOf<T extends IncidentType> = {
  tick: number;
  type: T;
  node: NodeId;
  ladder: Ladder;
  /** Graph surgery is recorded under the type of the incident that caused it, with its own evidence. */
  evidence: EvidenceMap[T] | SurgeryEvidence;
  laps: number;
  tokens: number;
};

export type Incident = { [T in IncidentType]: IncidentOf<T> }[IncidentType];

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
  /** Times the verified scope was changed irreparably by a writer no sandbox layer named. */
  tampered: number;
  /** Long nodes: last step seen, best dev so far and the step it was reached at. */
  step: number;
  value: number | null;
  best: number | null;
  bestStep: number;
  /** Consecutive observations (step, best) stayed unchanged. */
  stalled: number;
  /** (step, best) at the last observation, to tell whether the next one saw progress. */
  seen: { step: number; best: number | null } | null;
  ckpts: Ckpt[];
  /** Checkpoints in a row that improved best_dev by less than PLATEAU_EPS. */
  flat: number;
  /** Reactive nodes: events waiting to be delivered, events delivered in this attempt, finish requested. */
  inbox: StreamEvent[];
  delivered: StreamEvent[];
  finishing: boolean;
  /** Tick the finish was requested on (a reactive node's finish budget counts from it). */
  finishAt: number | null;
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
  /**
   * The scheduler job of the node's latest attempt, on the Slurm runtime only (absent everywhere else, so
   * a local run's state and black box do not change): id, attempt and the job's last known state.
   */
  job?: { id: string; attempt: number; state: string };
  /**
   * Lanes the latest attempt's sandbox left read-only (past COPY_LIMIT or MAX_SHADOWED_ENTRIES), where a
   * write is refused rather than caught in a shadow (absent when there are none, so no other run changes).
   */
  refused?: LaneRefusal[];
  /**
   * An agent node's own steps (live path only; absent everywhere else, so no other run's state or black
   * box changes): what the step detectors remember of the current attempt.
   */
  agent?: AgentTrack;
}

/** A lane bound read-only for a node's attempt: its worker's sandbox, or its acceptance check's (tree mode:
 * also the merge gate's, the final test's and the refit's children, which run the same artifact). */
export interface LaneRefusal {
  attempt: number;
  by: "worker" | "acceptance" | "gate" | "test" | "refit";
  /** Run-relative inside the run (`nodes/N3`), absolute outside it. */
  path: string;
  /** The limit it is past (`more than 2,000 files (COPY_LIMIT)`). */
  why: string;
}

/** What the detectors remember of an attempt's agent steps (overwatch/agent_steps.ts). */
export interface AgentTrack {
  /** The attempt these steps belong to: a new attempt starts afresh. */
  attempt: number;
  /** Last step judged: a step seen again (replayed after a resume) is not counted twice. */
  step: number;
  /** Steps at which the entries of the fingerprint trail appeared (0: the attempt's start). */
  trailSteps: number[];
  /** The current frozen run: its first step (0 when none), tokens and cost. */
  from: number;
  tokens: number;
  cost: number | null;
}

/**
 * A fault of the run's fault script. Engine-side kinds (reopen, taint) are injected by the engine; the others
 * travel to the targeted node's worker in its config, and the worker reports when one fires.
 */
export interface FaultState {
  kind: string;
  node: NodeId;
  /** The fault as written in the script. */
  spec: Record<string, unknown>;
  fired: boolean;
}

/** Version of the state and replay format; a replay of another version is refused, never misread. */
export const STATE_VERSION = 2;

export interface RunState {
  v: typeof STATE_VERSION;
  scenario: string;
  mode: Mode;
  tick: number;
  plan: Plan;
  faults: FaultState[];
  nodes: Record<NodeId, NodeState>;
  slots: Record<Slot, { total: number; held: NodeId[] }>;
  /** The frozen comparability tuple and the node that froze it. */
  frozen: (Tuple & { by: NodeId }) | null;
  incidents: number;
  /** Operator requests applied so far (the request file's lines up to this one). */
  requests: number;
  report: number;
  verdict: Verdict | null;
  quiesced: number | null;
  /**
   * Set when the user's programs (command and agent workers) run without any sandbox layer (--unsandboxed
   * where bubblewrap is missing): such a program could write into any scope, so it runs alone (see ADMIT).
   * Absent otherwise.
   */
  unconfined?: true;
  /**
   * Set in an unconfined run whose programs no mount namespace could watch (unshare unusable here): their
   * writes to /tmp, $HOME and other runs are not observed. Absent otherwise.
   */
  unwatched?: true;
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
    tampered: 0,
    step: 0,
    value: null,
    best: null,
    bestStep: 0,
    stalled: 0,
    seen: null,
    ckpts: [],
    flat: 0,
    inbox: [],
    delivered: [],
    finishing: false,
    finishAt: null,
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
  opts: { scenario: string; mode: Mode; faults?: FaultState[] },
): RunState {
  return {
    v: STATE_VERSION,
    scenario: opts.scenario,
    mode: opts.mode,
    tick: 0,
    plan,
    faults: opts.faults ?? [],
    nodes: Object.fromEntries(plan.nodes.map((n) => [n.id, initialNode(!n.spawn_only)])),
    slots: { gpu: { total: plan.slots.gpu, held: [] }, cpu: { total: plan.slots.cpu, held: [] } },
    frozen: null,
    incidents: 0,
    requests: 0,
    report: 0,
    verdict: null,
    quiesced: null,
  };
}
