/**
 * Starting and resuming a tree run: the run directory's pieces (data files, store, black box, process
 * journal, merge gate, sandbox context) put together, then the loop driven. Resume rebuilds everything from
 * the store: the state by folding its events (checked against its snapshot), the projections, and the data
 * from the user's CSV, which must hash as it did when the run began.
 *
 * @module
 */
import { basename, relative } from "node:path";
import { canonical } from "../model/json.ts";
import type { Incident } from "../model/state.ts";
import { ProcJournal, sweepLeftovers } from "../runtime/proc/mod.ts";
import { cancelLeftJobs } from "./execute/job_child.ts";
import type { SlurmClient } from "../runtime/slurm/mod.ts";
import type { GbdtParams, MetricName } from "../tabular/mod.ts";
import { METRICS } from "../tabular/mod.ts";
import { TREE_FILES, TreeBlackBox } from "./blackbox.ts";
import { loadData, sandboxOf, type TreeData, writeDataFiles } from "./data.ts";
import { MergeGate } from "./gate/gate.ts";
import { SlotPool } from "./execute/slot_pool.ts";
import { SCREEN_FACTOR } from "./execute/screen.ts";
import { begin, drive, type Ideator, LIBRARY, type TreeWorld } from "./loop.ts";
import { TOOLKIT_DIR } from "./execute/sandbox.ts";
import { initialState } from "./grow.ts";
import { foldEvents } from "./step.ts";
import { writeSplitsFile } from "./splits_file.ts";
import { TreeStore } from "./store.ts";
import type { IdeatorKind, Search, StepFile, TreeConfig, TreeEvent, TreeState } from "./types.ts";

export interface TreeRunOptions {
  runDir: string;
  runsDir: string | null;
  data: string;
  target: string;
  /** The CSV's delimiter (default ","). */
  delimiter?: string;
  metric?: MetricName;
  cycles: number;
  executors: number;
  seed: number;
  ideator: IdeatorKind;
  search: Search;
  insights: boolean;
  /** Successive halving's factor (TreeConfig.screen): default SCREEN_FACTOR; 1 screens nothing. */
  screen?: number;
  /** Held-out queries allowed, the baseline's included (default: one per cycle, plus the baseline; with
   * the gate at the end, the baseline and one comparison). */
  heldoutBudget?: number;
  /** When the merge gate is asked (TreeConfig.gateAt); absent: after each cycle. */
  gateAt?: "end";
  observeMs: number;
  wallMs: number;
  maxDepth?: number;
  bwrap: string | null;
  /** The LLM ideator, when `ideator` is "llm". */
  llm?: Ideator;
  signal?: AbortSignal;
  onStep?: TreeWorld["onStep"];
  /**
   * Local jobs on long-lived harness slots (slot_pool.ts), the default; false: a fresh child process per job
   * (what the benchmark compares against).
   */
  slots?: boolean;
  /** The starting artifact (`--start`); absent: the default. */
  start?: { kind: "default" | "weak" | "file"; file?: string; model: Partial<GbdtParams>; steps: StepFile[] };
  /** Executors as Slurm jobs (`--runtime slurm`); absent: local children. */
  slurm?: SlurmClient | null;
}

export interface TreeOutcome {
  state: TreeState;
  incidents: Incident[];
  runDir: string;
  /** Held-out and test label reads the gate made in this process. */
  gateReads: { heldout: number; test: number };
}

/** The import specifier of the toolkit as a step module (in `nodes/<id>/steps/`) must write it. */
export function toolkitSpecifier(runDir: string): string {
  const rel = relative(`${runDir}/nodes/n0/steps`, `${TOOLKIT_DIR}/mod.ts`);
  return rel.startsWith(".") ? rel : `./${rel}`;
}

function world(
  runDir: string,
  runsDir: string | null,
  data: TreeData,
  state: TreeState,
  store: TreeStore,
  o: Pick<TreeRunOptions, "bwrap" | "llm" | "signal" | "onStep" | "slurm" | "slots">,
): TreeWorld {
  const sandbox = sandboxOf(runDir, runsDir, data.file, o.bwrap);
  const journal = new ProcJournal(runDir);
  const watch = {
    observeMs: state.config.observeMs,
    wallMs: state.config.wallMs,
    journal,
    signal: o.signal,
    logDir: `${runDir}/logs`,
  };
  const ideator = state.config.ideator === "llm" ? o.llm : LIBRARY;
  if (!ideator) throw new TypeError("Cannot run the LLM ideator: no LLM client was given");
  const slots = o.slots === false ? null : new SlotPool(sandbox, journal, watch.logDir);
  // Warm before the first cycle: an executor and a recomputation slot per executor, one prediction slot.
  const e = state.config.executors;
  slots?.warm({ ...(o.slurm ? {} : { execute: e }), recompute: e, predict: 1 });
  return {
    runDir,
    data,
    sandbox,
    journal,
    store,
    box: new TreeBlackBox(runDir),
    gate: new MergeGate(data, sandbox, watch, slots),
    slots,
    ideator,
    signal: o.signal,
    onStep: o.onStep,
    slurm: o.slurm ?? null,
  };
}

/** Starts a new run in `o.runDir` (which must not hold one) and drives it. */
/** Successive halving's factor for a run: the tree search with the library ideator screens (loop.ts). */
const screenOf = (o: TreeRunOptions) =>
  o.search === "tree" && o.ideator === "library" ? Math.max(1, o.screen ?? SCREEN_FACTOR) : 1;

export async function startTree(o: TreeRunOptions): Promise<TreeOutcome> {
  const delimiter = o.delimiter && o.delimiter !== "," ? o.delimiter : undefined;
  const data = loadData(o.data, o.target, { seed: o.seed, metric: o.metric, delimiter });
  Deno.mkdirSync(o.runDir, { recursive: true });
  writeDataFiles(o.runDir, data, o.seed);
  writeSplitsFile(o.runDir, data, o.seed);
  const config: TreeConfig = {
    metric: data.task.metric,
    direction: METRICS[data.task.metric].direction === "higher" ? "maximize" : "minimize",
    seed: o.seed,
    cycles: o.cycles,
    executors: o.executors,
    ideator: o.ideator,
    search: o.search,
    insights: o.insights,
    ...(screenOf(o) > 1 ? { screen: screenOf(o) } : {}),
    heldoutBudget: o.heldoutBudget ?? (o.gateAt === "end" ? 2 : o.cycles + 1),
    ...(o.gateAt === "end" ? { gateAt: "end" as const } : {}),
    maxDepth: o.maxDepth ?? 8,
    observeMs: o.observeMs,
    wallMs: o.wallMs,
    toolkit: toolkitSpecifier(o.runDir),
    ...(delimiter ? { delimiter } : {}),
    ...(o.start && o.start.kind !== "default"
      ? {
        start: {
          kind: o.start.kind,
          ...(o.start.file ? { file: o.start.file } : {}),
          model: o.start.model,
          steps: o.start.steps,
        },
      }
      : {}),
  };
  const state = initialState(config, data.info, `tree:${basename(o.data).replace(/\.csv$/i, "")}`);
  const store = TreeStore.create(`${o.runDir}/${TREE_FILES.db}`, { config: canonical(config), data: o.data });
  try {
    const w = world(o.runDir, o.runsDir, data, state, store, o);
    try {
      begin(store, w.box, state);
      const end = await drive(w, state);
      return { state: end, incidents: store.incidents(), runDir: o.runDir, gateReads: w.gate.reads };
    } finally {
      await w.slots?.close();
    }
  } finally {
    store.close();
  }
}

/** What `arrow tree --resume` found on disk before continuing. */
export interface Reopened {
  state: TreeState;
  events: TreeEvent[];
  /** The snapshot disagreed with the events folded up to it (the events win). */
  snapshotDiffered: boolean;
}

export function reopen(store: TreeStore): Reopened {
  const events = store.events();
  const { state } = foldEvents(events);
  // The snapshot is the state after event `seq` (written when a step settled a cycle): the events up to it
  // must fold to it.
  const snap = store.snapshot();
  const at = snap && snap.seq < events.length - 1 ? foldEvents(events.slice(0, snap.seq + 1)).state : state;
  return { state, events, snapshotDiffered: !snap || canonical(snap.state) !== canonical(at) };
}

/** Continues the run in `runDir` from its last persisted step. */
export async function resumeTree(
  runDir: string,
  o: Pick<TreeRunOptions, "runsDir" | "bwrap" | "llm" | "signal" | "onStep" | "slurm" | "slots">,
): Promise<TreeOutcome & { reopened: Reopened }> {
  const store = TreeStore.open(`${runDir}/${TREE_FILES.db}`);
  try {
    const reopened = reopen(store);
    const { state, events } = reopened;
    const data = loadData(state.dataset.file, state.dataset.target, {
      seed: state.config.seed,
      metric: state.config.metric,
      delimiter: state.config.delimiter,
    });
    for (const k of ["data_hash", "split_hash"] as const) {
      if (data.info[k] !== state.dataset[k]) {
        throw new RangeError(
          `Cannot resume ${runDir}: ${state.dataset.file} is not the file the run began with (its ${k} differs)`,
        );
      }
    }
    writeDataFiles(runDir, data, state.config.seed);
    writeSplitsFile(runDir, data, state.config.seed);
    const journal = new ProcJournal(runDir);
    const since = journal.firstStart();
    await journal.stopLeftovers();
    await sweepLeftovers(runDir, since);
    // As the graph path's resume does with a job of a node it restarts: the old job goes, the new one runs.
    if (o.slurm) await cancelLeftJobs(o.slurm, basename(runDir));
    const w = world(runDir, o.runsDir, data, state, store, o);
    try {
      w.box.rebuild(events, events.map((_, i) => i), store.incidents(), state);
      const end = await drive(w, state);
      return { state: end, incidents: store.incidents(), runDir, gateReads: w.gate.reads, reopened };
    } finally {
      await w.slots?.close();
    }
  } finally {
    store.close();
  }
}
