/**
 * What each incident records: one evidence shape per incident type, so the supervisor that writes it and
 * the narration, report and dashboard that read it agree on its keys at compile time. Everything in here
 * is world-state (paths, hashes, steps, scores, exit codes), enough to check a call without rerunning.
 *
 * Persisted keys never change meaning.
 *
 * @module
 */
import type { IncidentType, NodeId } from "../graph/types.ts";

/** A metered retry: which lap this was and how many the node has. */
export interface LapInfo {
  lap: number;
  lap_budget: number;
  /** The back-edge that meters the loop ("N5→N4"), or null for the default budget. */
  via: string | null;
}

export interface OscillationEvidence extends LapInfo {
  trail: string[];
  scope: string;
  /** An agent observed in its own steps: the steps whose fingerprints made the trail (absent for ticks). */
  agent_steps?: number[];
}

/**
 * An agent seen in its own time (each agent step an observation): its scope stayed frozen for
 * `frozen_steps` steps while tokens burned, or its loop ran out of steps with the scope frozen. A bounce.
 */
export interface SpinEvidence extends LapInfo {
  frozen_steps: number;
  /** The frozen steps, first and last. */
  steps: { from: number; to: number };
  /** Tokens and cost the frozen steps reported (cost null when the API reported none). */
  tokens_burned: number;
  cost: number | null;
  fingerprint: string;
  tokens_total: number;
  scope: string;
  /** Set when the loop ended on its own step limit rather than being stopped at K_FREEZE. */
  stopped_by?: "step limit";
  /** Steps the agent took in this attempt, when its loop had ended. */
  steps_taken?: number;
}

/** Fingerprint frozen for K_FREEZE observations while tokens burned (a bounce). */
export interface FrozenEvidence extends LapInfo {
  frozen_ticks: number;
  fingerprint: string;
  tokens_burned: number;
  tokens_total: number;
  scope: string;
}

/** A hard budget ran out (a fuse). */
export interface BudgetEvidence {
  budget: "ticks" | "tokens" | "wall" | "run ticks" | "default ticks";
  limit: number;
  used: number;
  /** An agent whose token budget ran out while its scope was frozen: it was spinning (its last steps). */
  spinning?: { frozen_steps: number; steps: { from: number; to: number }; tokens_burned: number };
}

export interface HungEvidence {
  step: number;
  best_dev: number | null;
  /** Consecutive observations without a new (step, best). */
  stalled_ticks: number;
  /** Wall-clock pace of observation on the real path ("1s"), absent on the mock path. */
  observe_every?: string;
  /** True when the attempt never wrote a metric line. */
  silent_from_start?: boolean;
  restarts: number;
  max_restarts: number;
  best_ckpt: string | null;
  resume_from?: string | null;
  recurrence?: true;
}

export interface PlateauEvidence {
  ckpt: string;
  step: number;
  previous_ckpt_best: number | null;
  target: number | null;
  flat_ckpts: number;
  freed: "gpu";
  best_dev: number | null;
  best_ckpt: string | null;
  kept: string | null;
}

export interface SupersededEvidence {
  /** The checkpoint boundary it was killed at; null when it was never started. */
  ckpt: string | null;
  step: number;
  best_dev: number | null;
  answered_by: NodeId | null;
  freed: "gpu" | null;
  started: boolean;
  /** Successive halving in a sweep (engine/sweep.ts): the sweep node, the rung the configuration lost at. */
  sweep?: NodeId;
  rung?: number;
  /** Its rank among the `reached` configurations ranked at the rung, of which the top `keep` stay. */
  rank?: number;
  keep?: number;
  reached?: number;
  eta?: number;
  /** The scores that decided it: the top `keep` and its own, best first, with the step each was read at. */
  scores?: { node: NodeId; score: number | null; step: number }[];
}

/** How a worker ended when it died instead of claiming. */
export interface CrashInfo {
  exit_code: number | null;
  signal: string | null;
  stderr_tail: string[];
  /** Set when the worker ran as a Slurm job: its id (null when the submission was refused). */
  job_id?: string | null;
  /** The job's end as Arrow classifies it: FAILED, CANCELLED, TIMEOUT, PREEMPTED, NODE_FAIL, OUT_OF_MEMORY,
   * UNKNOWN (lost), or PENDING for a job that could never start. */
  state?: string;
  /** Slurm's own state word and reason ("TimeLimit", "NonZeroExitCode", "PartitionTimeLimit", …). */
  slurm_state?: string;
  reason?: string;
}

export interface FalseCompletionEvidence extends LapInfo {
  acceptance: string[];
  exit_code: number | null;
  stdout: string;
  stderr: string;
  worker_exit: number | null;
  claimed_score: number | null;
  previous_claim: number | null;
  required_gain: number;
  /** What was wrong with the claim, when the gate refused it before or besides the acceptance command. */
  problem?: string;
  /** The worker died without claiming anything. */
  crash?: CrashInfo;
  /** The best value of the metric Arrow itself observed in metrics.jsonl, when the claim exceeded it. */
  observed_best?: number;
  /** Bytes of metrics.jsonl Arrow did not read at the worker's exit (past its read cap): the observed best
   * covers only what was read. */
  unread_metrics_bytes?: number;
  /** Lines of metrics.jsonl skipped as malformed in this attempt: the observed best covers only the rest. */
  malformed_metrics_lines?: number;
  reason?: "lap budget exhausted" | "retry did not improve by ACCEPT_EPS";
}

export interface ComparabilityEvidence {
  field: string;
  expected: string | number;
  got: string | number | null;
  frozen_by: NodeId;
  gate: string;
  manifest: string;
  baseline_stands: NodeId | null;
  blocked: NodeId[];
}

export interface EscapeAttempt {
  path: string;
  op: string;
  /** Sandbox layer that refused or caught the write, or null when it landed. */
  stopped_by: string | null;
  /** Where a write refused in silence was seen (a read-only mount: "the program's stderr"). */
  seen_in?: string;
  /** True once the scope was restored and re-hashed to its recorded content. */
  reverted: boolean;
}

export interface ScopeEvidence {
  writer: NodeId | "unattributed";
  scope: string | null;
  paths: string[];
  attempts: EscapeAttempt[];
  blocked: NodeId[];
  /** Why the writer could not be named (no sandbox layer saw the write). */
  unattributed?: string;
  /**
   * Why a write no sandbox layer saw is blamed on its writer all the same: it was the only program that
   * could have made it (the one unconfined program running while the plan's directory changed).
   */
  basis?: string;
  /** Paths that could not be restored (their content was never kept): the victim re-runs. */
  irreparable?: string[];
  /** How many times this scope was changed irreparably by an unnamed writer; at ACCEPT_MAX_LAPS the victim
   * is blocked instead of re-run again (a re-run would only invite the next overwrite). */
  times?: number;
}

/** What made a verified node's result stale. */
export type StaleReason = "fault" | "operator" | "scope changed" | "protocol re-frozen";

export interface StaleEvidence {
  reopened: NodeId;
  demoted: NodeId[];
  was: Record<NodeId, string>;
  reason: StaleReason;
  /** Operator's words (arrow reopen --reason), or the paths that changed. */
  note?: string;
  changed?: string[];
}

export interface TaintEvidence {
  tainted: NodeId;
  invalidated: NodeId[];
  spared: NodeId[];
  was: Record<NodeId, string>;
  reason: StaleReason;
  note?: string;
  changed?: string[];
}

/** Graph surgery: a spawn_only node grown on the live graph, funded by what an incident freed. */
export interface SurgeryEvidence {
  spawned: NodeId;
  by: NodeId | null;
  role: string;
  kind: string;
  cause: IncidentType;
  cause_node: NodeId;
  funded_by: "gpu" | "cpu";
}

export interface EvidenceMap {
  OSCILLATION_TRIP: OscillationEvidence;
  BUDGET_TRIP: FrozenEvidence | SpinEvidence | BudgetEvidence;
  HUNG_RESTART: HungEvidence;
  PLATEAU_TRIP: PlateauEvidence;
  SUPERSEDED_KILL: SupersededEvidence;
  FALSE_COMPLETION: FalseCompletionEvidence;
  COMPARABILITY_BLOCK: ComparabilityEvidence;
  SCOPE_VIOLATION: ScopeEvidence;
  STALE_CASCADE: StaleEvidence;
  TAINT_INVALIDATION: TaintEvidence;
}

/** True for the evidence of a graph-surgery incident (recorded under the type of the incident that caused it). */
export function isSurgery(e: unknown): e is SurgeryEvidence {
  return typeof e === "object" && e !== null && "spawned" in e && "funded_by" in e;
}
