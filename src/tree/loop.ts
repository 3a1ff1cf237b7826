/**
 * The shell around the step function: it performs what `state.pending` asks (ideate, run executors, query
 * the merge gate, run the final test), folds the resulting event with `step`, and persists every step —
 * SQLite first (the authority), then the projections. Everything impure is here; every decision is in
 * step.ts. A run interrupted mid-action commits nothing for that action: on resume, the state's `pending`
 * says what to do again, and executors are deterministic, so a resumed run ends as an uninterrupted one.
 *
 * @module
 */
import type { SlurmClient } from "../runtime/slurm/mod.ts";
import { cpuUsage } from "node:process";
import type { Incident, LaneRefusal } from "../model/state.ts";
import type { ProcJournal } from "../runtime/proc/mod.ts";
import { TreeBlackBox } from "./blackbox.ts";
import type { TreeData } from "./data.ts";
import { runExecutor } from "./execute/executor.ts";
import { screen } from "./execute/screen.ts";
import { ensembleExec, ensembleHypothesis, parentEvidence } from "./ensemble.ts";
import { anchoredBlend } from "./confirm.ts";
import type { ColumnEvidence } from "./ideate/evidence.ts";
import type { MergeGate } from "./gate/gate.ts";
import { libraryIdeas } from "./ideate/library.ts";
import type { SandboxContext } from "./execute/sandbox.ts";
import type { SlotPool } from "./execute/slot_pool.ts";
import { step } from "./step.ts";
import type { TreeStore } from "./store.ts";
import { writeModel } from "./model_dir.ts";
import type {
  Escape,
  ExecResult,
  FinalReferences,
  Hypothesis,
  LaneSeen,
  TreeAction,
  TreeEvent,
  TreeState,
} from "./types.ts";
import type { RefitRun } from "./gate/refit.ts";
import { inside, type Refusal, RefusalLog } from "../runtime/sandbox/mod.ts";
import { inPool } from "./in_pool.ts";

/** Where hypotheses come from. The library answers at once; an LLM takes its time and may fail. */
export interface Ideator {
  ideas(
    s: TreeState,
    parent: string,
    n: number,
    seed: number,
    /** Where the parent errs (its out-of-fold residuals by column, dev rows only), with insights on. */
    evidence?: ColumnEvidence[] | null,
  ): Promise<{ hypotheses: Hypothesis[]; problems: string[]; tokens: number }>;
}

export const LIBRARY: Ideator = {
  ideas: (s, parent, n, seed, evidence) =>
    Promise.resolve({
      hypotheses: libraryIdeas(s, parent, n, seed, evidence ?? null),
      problems: [],
      tokens: 0,
    }),
};

export interface TreeWorld {
  runDir: string;
  data: TreeData;
  sandbox: SandboxContext;
  journal: ProcJournal;
  store: TreeStore;
  box: TreeBlackBox;
  gate: MergeGate;
  ideator: Ideator;
  signal?: AbortSignal;
  onStep?: (s: TreeState, ev: TreeEvent, incidents: Incident[]) => void;
  /** Executors run as Slurm jobs through this client (`--runtime slurm`); null or absent: locally. */
  slurm?: SlurmClient | null;
  /** Long-lived harness slots for local jobs (slot_pool.ts); null or absent: a fresh child per job. */
  slots?: SlotPool | null;
}

interface Performed {
  event: TreeEvent;
  childMs: number;
  fitMs: number;
}

async function perform(w: TreeWorld, s: TreeState, a: TreeAction): Promise<Performed> {
  switch (a.a) {
    case "ideate": {
      const evidence = s.config.insights ? parentEvidence(w.runDir, s, w.data, a.parent) : null;
      // Successive halving: the tree screens `screen` times as many candidates as it measures in full, each on
      // one or two dev folds, and keeps the best (execute/screen.ts).
      const factor = s.config.search === "tree" && s.config.ideator === "library"
        ? Math.max(1, Math.floor(s.config.screen ?? 1))
        : 1;
      const drawn = await w.ideator.ideas(s, a.parent, a.n * factor, a.seed, evidence);
      const sc = factor > 1
        ? await screen(w, s, a.parent, drawn.hypotheses, a.n)
        : { promoted: drawn.hypotheses, screened: [], childMs: 0, fitMs: 0 };
      const r = {
        ...drawn,
        hypotheses: sc.promoted,
        ...(sc.screened.length ? { screened: sc.screened } : {}),
      };
      // The tree search also proposes an ensemble of what it has evaluated (chosen on out-of-fold dev
      // predictions; it costs no fit): random and greedy search are the baselines without it.
      // And the blend of the start with one evaluated node that its dev rows say is likeliest to be confirmed
      // on held-out rows (confirm.ts) — while the gate waits for the end, so the start is the incumbent.
      const tree = s.config.search === "tree";
      const e = tree ? ensembleHypothesis(w.runDir, s, w.data) : null;
      const b = tree && s.config.gateAt === "end" ? anchoredBlend(w.runDir, s, w.data) : null;
      const hypotheses = [...r.hypotheses, ...(e ? [e] : []), ...(b && b.key !== e?.key ? [b] : [])];
      return {
        event: { e: "proposed", parent: a.parent, ...r, hypotheses },
        childMs: sc.childMs,
        fitMs: sc.fitMs,
      };
    }
    case "execute": {
      const runs = await inPool(
        a.nodes,
        s.config.executors,
        (id) =>
          s.nodes[id]?.artifact.members
            ? Promise.resolve({ result: ensembleExec(w.runDir, s, id, w.data), childMs: 0, fitMs: 0 })
            : runExecutor(w, s, id),
      );
      const results: ExecResult[] = runs.map((r) => r.result);
      const wall = Math.max(0, ...runs.map((r) => r.childMs));
      return {
        event: { e: "executed", results },
        childMs: wall,
        fitMs: runs.reduce((t, r) => t + r.fitMs, 0),
      };
    }
    case "gate": {
      const g = await w.gate.heldout(s, a.node);
      return {
        event: {
          e: "gated",
          node: a.node,
          score: g.score,
          problem: g.problem,
          escapes: g.escapes,
          paired: g.paired,
          hung: g.hung,
          over_budget: g.overBudget,
          ...refusedField(laneRefusals(w, s, a.node, "gate", g.refusing)),
        },
        childMs: g.childMs,
        fitMs: g.fitMs,
      };
    }
    case "final": {
      // The starting and the best artifact are scored side by side, each once.
      const runs = await inPool(a.nodes, s.config.executors, (node) => w.gate.test(s, node));
      const scores = runs.map((g, i) => ({ node: a.nodes[i]!, score: g.score }));
      const problems = runs.flatMap((g, i) => (g.problem ? [`${a.nodes[i]}: ${g.problem}`] : []));
      const refs = a.nodes.length ? await finalReferences(w, s, a.nodes.at(-1)!) : null;
      const seen: LaneSeen[] = [
        ...runs.map((g, i) => seenBy(w, s, a.nodes[i]!, "test", g)),
        ...(refs ? [seenBy(w, s, a.nodes.at(-1)!, "refit", refs.refit)] : []),
      ].filter((x) => x.escapes.length || x.refused.length);
      return {
        event: {
          e: "verdict",
          scores,
          problem: problems.length ? problems.join("; ") : null,
          ...(refs ? { references: refs.references } : {}),
          ...(seen.length ? { seen } : {}),
        },
        childMs: Math.max(0, ...runs.map((g) => g.childMs)) + (refs?.childMs ?? 0),
        fitMs: runs.reduce((t, g) => t + g.fitMs, 0) + (refs?.fitMs ?? 0),
      };
    }
  }
}

/** The final test's references (merge gate), and the refit's model saved in `model/` when it was fit. */
async function finalReferences(
  w: TreeWorld,
  s: TreeState,
  best: string,
): Promise<{ references: FinalReferences; refit: RefitRun; childMs: number; fitMs: number }> {
  const { refs, refit } = await w.gate.references(s, best);
  if (refs.refit?.score !== null && refs.refit?.score !== undefined) {
    writeModel(w.runDir, s, w.data, best, refit, refs.refit.score);
  }
  return { references: refs, refit, childMs: refit.childMs, fitMs: refit.fitMs };
}

/** The lanes a child that ran `node`'s artifact left read-only, as its record keeps them (run-relative,
 * once each, under the node's current attempt). */
function laneRefusals(
  w: TreeWorld,
  s: TreeState,
  node: string,
  by: LaneRefusal["by"],
  refusing: readonly Refusal[],
): LaneRefusal[] {
  const log = new RefusalLog((abs) => inside(abs, w.runDir) ? abs.slice(w.runDir.length + 1) : abs);
  log.add(node, s.nodes[node]?.attempt ?? 1, by, refusing);
  return log.lanes(node);
}

const refusedField = (refused: LaneRefusal[]) => (refused.length ? { refused } : {});

/** What the final test's or the refit's child of `node` saw outside its lane. */
function seenBy(
  w: TreeWorld,
  s: TreeState,
  node: string,
  by: LaneSeen["by"],
  run: { escapes: Escape[]; refusing: readonly Refusal[] },
): LaneSeen {
  return { node, by, escapes: run.escapes, refused: laneRefusals(w, s, node, by, run.refusing) };
}

const cpuMs = (c: { user: number; system: number }) => (c.user + c.system) / 1000;

/** Drives the loop from `state` until it is done or `signal` aborts; returns the last persisted state. */
export async function drive(w: TreeWorld, start: TreeState): Promise<TreeState> {
  let state = start;
  while (state.pending && !w.signal?.aborted) {
    const t0 = performance.now();
    const cpu0 = cpuUsage();
    const done = await perform(w, state, state.pending);
    // Children stopped by an interrupt did not fail: their outcome is not evidence, so nothing is committed.
    if (w.signal?.aborted) break;
    const t1 = performance.now();
    const out = step(state, done.event);
    w.store.append(out.state.tick, done.event, out.state, out.incidents);
    w.box.append(done.event, out.state, out.incidents);
    const wall = performance.now() - t0;
    w.store.timing({
      seq: out.state.tick,
      kind: done.event.e,
      wall_ms: wall,
      child_ms: done.childMs,
      fit_ms: done.fitMs,
      overhead_ms: wall - Math.min(done.childMs, t1 - t0),
      cpu_ms: cpuMs(cpuUsage(cpu0)),
      // Ideation is the loop's own work, but for the screens' children it waits on (their time is childMs).
      loop_ms: wall - (t1 - t0) +
        (done.event.e === "proposed" ? t1 - t0 - Math.min(done.childMs, t1 - t0) : 0),
    });
    state = out.state;
    w.onStep?.(state, done.event, out.incidents);
  }
  w.box.flush();
  return state;
}

/** Persists the first step (the initial state as the `init` event). */
export function begin(store: TreeStore, box: TreeBlackBox, state: TreeState): void {
  const event: TreeEvent = { e: "init", state };
  store.append(0, event, state, []);
  box.append(event, state, []);
}

export { TreeBlackBox };
