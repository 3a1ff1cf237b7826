/**
 * The hypothesis tree as one serialisable value, and the events and actions of its step function. Every
 * field is plain JSON, so `state.json`, the SQLite snapshot and the dashboard's fold of the event log all hold
 * the same thing. Persisted status strings never change meaning.
 *
 * @module
 */
import type { Incident, LaneRefusal, Verdict } from "../model/state.ts";
import type { ColumnKind, GbdtParams, MetricName, Task } from "../tabular/mod.ts";
import type { PairedGain } from "./gate/paired.ts";
import type { LossGain } from "./gate/row_loss.ts";
import type { Family } from "./ideate/families.ts";

export type TreeNodeId = string;

/** An artifact's model settings: GBDT parameters (no `kind`, or `kind: "gbdt"` replacing a linear parent's),
 * or `{ kind: "linear", alpha, tune? }` — the toolkit's regularised linear model on the encoded features (with
 * `tune`, its strength chosen by inner cross-validation on the training rows). */
export type ArtifactModel = Partial<GbdtParams> & { kind?: "gbdt" | "linear"; alpha?: number; tune?: number };

/** One member of an ensemble artifact: an evaluated node and its weight (weights sum to 1). */
export interface EnsembleMember {
  node: TreeNodeId;
  weight: number;
}

/** Where a node stands. `pruned`: evaluated, hurt its parent, never expanded; `failed-informative`: its
 * code or its executor failed, and what went wrong is its lesson. */
export type TreeStatus = "pending" | "running" | "evaluated" | "admitted" | "pruned" | "failed-informative";

export const TREE_STATUSES: readonly TreeStatus[] = [
  "pending",
  "running",
  "evaluated",
  "admitted",
  "pruned",
  "failed-informative",
];

/** A hypothesis family: declared once, with everything the tree reads of it, in ideate/families.ts. */
export type { Family };

export type Search = "tree" | "random" | "greedy";
export type IdeatorKind = "library" | "llm";
export type Outcome = "helped" | "hurt" | "neutral" | "failed";

/** A step module of an artifact: its path inside the scope (`steps/…ts`) and its source. */
export interface StepFile {
  path: string;
  source: string;
}

export interface Hypothesis {
  /** Identity for de-duplication: family, columns and parameters. */
  key: string;
  family: Family;
  columns: string[];
  params: Record<string, number | string>;
  /** The hypothesis in one sentence (untrusted when an LLM wrote it: render as text). */
  text: string;
  /** The new step module, or null for a change of model settings only. */
  step: StepFile | null;
  /** Model settings the child takes on, over its parent's (a `kind` replaces them whole). */
  model: ArtifactModel;
  /** An ensemble's members (family `ensemble`): the child's artifact is their weighted average. */
  members?: EnsembleMember[];
  source: IdeatorKind;
  /** LLM tokens the hypothesis cost (0 for the library). */
  tokens: number;
}

/** What the executor runs: step modules in order and the model settings (artifact.json). */
export interface Artifact {
  steps: string[];
  model: ArtifactModel;
  /** An ensemble: the weighted average of these nodes' predictions (each its own artifact; no steps). */
  members?: EnsembleMember[];
}

export interface DevScore {
  mean: number;
  std: number;
  folds: number[];
}

/** The distilled lesson of one evaluated node, relative to its parent (deltas: positive = better). */
export interface Insight {
  family: Family;
  columns: string[];
  outcome: Outcome;
  delta: DevScore | null;
  /** Its out-of-fold per-row loss against its parent's on every dev row, when both were kept (what the
   * outcome is labelled by; absent: the fold deltas, as in states recorded before). */
  rows?: LossGain;
  why: string;
  sentence: string;
}

/** A candidate screened before the cycle's full measurements (execute/screen.ts): its per-row loss on the
 * screen's dev rows against its parent's (gain > 0: better), or why it was not screened, and whether it went
 * on to be measured in full. */
export interface ScreenedCandidate {
  key: string;
  family: Family;
  columns: string[];
  text: string;
  gain: LossGain | null;
  problem: string | null;
  promoted: boolean;
}

/** Counts of children's outcomes by family: what a parent has learned from its children. */
export type FamilyTally = Partial<Record<Family, Record<Outcome, number>>>;

export interface TreeNode {
  id: TreeNodeId;
  parent: TreeNodeId | null;
  depth: number;
  /** Cycle the node was created in (0: the starting artifact). */
  cycle: number;
  hypothesis: Hypothesis | null;
  artifact: Artifact;
  status: TreeStatus;
  attempt: number;
  dev: DevScore | null;
  /** The executor's own claim (never used for a decision: `dev` is Arrow's recomputation). */
  claimed: number | null;
  heldout: number | null;
  gate: "admitted" | "rejected" | "baseline" | "skipped: budget" | "failed" | null;
  /** The gate's paired held-out comparison with the incumbent of its time (gain, standard error). */
  paired?: PairedGain | null;
  /** Its pooled out-of-fold dev predictions against the start's, per row (confirm.ts); absent for the start
   * and in states recorded before it was measured. */
  oof?: LossGain;
  /** Its columns' permutation importances on dev rows, from its recomputation (absent when not measured). */
  importance?: Record<string, number>;
  test: number | null;
  insight: Insight | null;
  lesson: string | null;
  children: TreeNodeId[];
  /** Evaluated or failed nodes in this subtree (itself included): UCB's visit count. */
  visits: number;
  /** Sum of dev gains over the root in this subtree (positive = better). */
  value: number;
  /** The ideator had nothing more to propose here. */
  exhausted: boolean;
  /** Candidates screened under this node, promoted or not (not proposed here again; insights read them). */
  screened?: ScreenedCandidate[];
  /** Children's outcomes by family, and one sentence saying what they taught. */
  tally: FamilyTally;
  summary: string | null;
  tokens: number;
  /**
   * Lanes the latest attempt's sandboxes (its executor's, its recomputation's) left read-only binds, where a
   * write is refused rather than caught in a shadow (absent when there are none, so no other run changes).
   */
  refused?: LaneRefusal[];
}

export interface ColumnInfo {
  name: string;
  kind: ColumnKind;
  /** Missing cells among dev rows. */
  missing: number;
  distinct: number;
  /** Numeric columns: smallest value among dev rows. */
  min: number | null;
  /** Text or many-level columns whose values look like names (several words). */
  nameLike: boolean;
  /** Categorical: levels seen fewer than 5 times (or in under 1% of dev rows). */
  rare: number;
  /** Categorical or text columns whose values are dates (tabular/dates.ts looksLikeDates); absent otherwise. */
  date?: true;
}

/** What is known about the data before any hypothesis runs — from dev rows only. */
export interface DatasetInfo {
  file: string;
  rows: number;
  dev: number;
  heldout: number;
  test: number;
  folds: number;
  target: string;
  task: Task;
  classes: string[];
  columns: ColumnInfo[];
  data_hash: string;
  split_hash: string;
  /** Columns left out before anything ran (empty on every row, or id-like: unique per row), and why. */
  dropped?: { column: string; reason: string }[];
}

export interface TreeConfig {
  metric: MetricName;
  direction: "maximize" | "minimize";
  seed: number;
  cycles: number;
  executors: number;
  ideator: IdeatorKind;
  search: Search;
  insights: boolean;
  /**
   * Successive halving (tree search, library ideator; screens run locally, like recomputations): `screen` times as many candidates as
   * executors are screened on one or two dev folds each cycle and the best measured in full (absent or 1:
   * none screened).
   */
  screen?: number;
  heldoutBudget: number;
  /** Deepest node the tree may grow. */
  maxDepth: number;
  /** How often an executor is observed; silent for K_FREEZE observations = hung. */
  observeMs: number;
  /** Wall budget of one executor attempt. */
  wallMs: number;
  /** The tabular toolkit's mod.ts, relative to a node's steps/ directory (what step modules import). */
  toolkit: string;
  /** The CSV's delimiter when it is not a comma (`--delimiter`); a resumed run re-reads the file with it. */
  delimiter?: string;
  /**
   * When the merge gate is asked: absent, after each cycle (its best newcomer, when it beats the incumbent
   * on dev beyond noise); `end`, once the cycles are spent — the best node on dev against the start, then the
   * next best while held-out queries remain — so a small held-out part is spent on the strongest candidates
   * only (with the default budget of one comparison, at the least strict bar).
   */
  gateAt?: "end";
  /** The starting artifact when it is not the default (`--start weak` or an artifact file). */
  start?: { kind: "weak" | "file"; file?: string; model: Partial<GbdtParams>; steps: StepFile[] };
}

/** One point of the dashboard's chart, after each cycle (gains over the starting artifact). */
export interface CyclePoint {
  cycle: number;
  nodes: number;
  best_dev_gain: number;
  incumbent: TreeNodeId;
  incumbent_dev_gain: number;
  incumbent_heldout_gain: number;
}

/** What the shell is asked to do next; the state holds it, so a resumed run knows what was under way. */
export type TreeAction =
  | { a: "execute"; nodes: TreeNodeId[] }
  | { a: "ideate"; parent: TreeNodeId; n: number; seed: number }
  | { a: "gate"; node: TreeNodeId }
  | { a: "final"; nodes: TreeNodeId[] };

export interface TreeState {
  v: 1;
  mode: "tree";
  scenario: string;
  /** Steps taken (events folded), the tree's logical clock. */
  tick: number;
  cycle: number;
  config: TreeConfig;
  dataset: DatasetInfo;
  nodes: Record<TreeNodeId, TreeNode>;
  order: TreeNodeId[];
  incumbent: TreeNodeId | null;
  /** Nodes admitted by the merge gate, in order (the root first, as the baseline). */
  admitted: TreeNodeId[];
  heldout: { used: number; budget: number };
  pending: TreeAction | null;
  /** Nodes dispatched in this cycle whose results are awaited. */
  running: TreeNodeId[];
  history: CyclePoint[];
  incidents: number;
  verdict: Verdict | null;
  final: {
    start: number | null;
    best: number | null;
    problem: string | null;
    /** The references scored on the final test (absent in runs from before they were). */
    references?: FinalReferences;
    /** What the reader must know about the result (below the trivial baseline, below the strong default). */
    flags?: string[];
  } | null;
}

/** Final-test scores fit on dev + held-out: the admitted artifact refit, the strong default, the trivial. */
export interface FinalReferences {
  refit: { node: TreeNodeId; score: number | null; problem: string | null } | null;
  strong_default: { score: number | null; problem: string | null };
  trivial: { score: number | null };
}

/** Something a sandbox layer saw the code try outside its lane. */
export interface Escape {
  path: string;
  op: "read" | "write" | "delete" | "net" | "import";
  stopped_by: string | null;
  /** Where a write a read-only mount refused was seen (the program's stderr); absent for the other layers. */
  seen_in?: string;
}

/** Silence past the hang window and a spent budget, as the one child watcher reports them. */
export type { Hang, Overrun } from "../runtime/proc/mod.ts";
import type { Hang, Overrun } from "../runtime/proc/mod.ts";

/** Everything observed about one executor attempt, and its acceptance (recomputation). */
export interface ExecResult {
  node: TreeNodeId;
  attempt: number;
  exit: number | null;
  signal: string | null;
  stderr_tail: string[];
  /** Silent past the hang window: folds done, and whether it never wrote a line. */
  hung: Hang | null;
  over_budget: Overrun | null;
  escapes: Escape[];
  /** The module's own failure (exit 3): the lesson. */
  lesson: string | null;
  /** results.json as read: the claimed dev score, or what was wrong with it. */
  claim: { score: number | null; problem: string | null } | null;
  /** Best fold score the executor logged in metrics.jsonl (what Arrow observed itself). */
  observed_best: number | null;
  artifact_changed: boolean;
  /** Arrow's recomputation: fold scores, or why it failed (`hung` when it went silent); null when not run. */
  recomputed:
    | {
      folds: number[];
      /** Its pooled out-of-fold per-row loss against the start's, dev rows only (confirm.ts). */
      vs_start?: LossGain;
      /** The same against its parent's (what its insight is labelled by: insight.ts). */
      vs_parent?: LossGain;
      /** Each column's permutation importance on the dev folds' validation rows (mean per-row loss increase
       * when it is shuffled; ideate/evidence.ts). */
      importance?: Record<string, number>;
    }
    | { problem: string; exit: number | null; stderr_tail: string[]; hung?: Hang | null }
    | null;
  /** The lanes its executor's and recomputation's layouts left read-only (absent when none). */
  refused?: LaneRefusal[];
}

export type TreeEvent =
  | { e: "init"; state: TreeState }
  | {
    e: "proposed";
    parent: TreeNodeId;
    hypotheses: Hypothesis[];
    problems: string[];
    tokens: number;
    /** The candidates screened to choose the hypotheses measured in full (absent: none were). */
    screened?: ScreenedCandidate[];
  }
  | { e: "executed"; results: ExecResult[] }
  | {
    e: "gated";
    node: TreeNodeId;
    score: number | null;
    problem: string | null;
    escapes: Escape[];
    /** The candidate against the incumbent on the same held-out rows (absent in logs written before the
     * gate measured it: those are judged by the rule of their time, ACCEPT_EPS alone). */
    paired?: PairedGain | null;
    /** The gate's child went silent past its hang window, or ran past its wall budget (then no score). */
    hung?: Hang | null;
    over_budget?: Overrun | null;
    /** The lanes the gate child's layout left read-only (absent when none). */
    refused?: LaneRefusal[];
  }
  | {
    e: "verdict";
    scores: { node: TreeNodeId; score: number | null }[];
    problem: string | null;
    references?: FinalReferences;
    /** What the final test's and the refit's children saw outside their lanes, by node (absent when nothing). */
    seen?: LaneSeen[];
  };

/** What a child that ran a node's artifact after its executor (final test, refit) saw outside its lane. */
export interface LaneSeen {
  node: TreeNodeId;
  by: "test" | "refit";
  escapes: Escape[];
  refused: LaneRefusal[];
}

/** What one step produced besides the new state: incidents to record. */
export interface StepOutput {
  state: TreeState;
  incidents: Incident[];
}
