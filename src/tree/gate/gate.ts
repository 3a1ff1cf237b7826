/**
 * The merge gate: the only code in tree mode that reads held-out labels (and, once at the end, test
 * labels). A candidate's artifact is fit on every dev row in a sandboxed child that sees the held-out rows'
 * features and nothing else of them — written to a private file that exists only while that child runs —
 * and the child's predictions are scored here. A candidate's held-out predictions are also compared with the
 * incumbent's on the same rows (a paired bootstrap, paired.ts), so the step function can tell a gain from
 * the noise of a small held-out part; each held-out prediction set is kept in the run's private
 * `.arrow/heldout/` for that comparison, never shown to a child. Whether the result admits the node is the
 * step function's call; how many queries were made is counted there and capped by `--heldout-budget`. At
 * the end it scores the final test once per artifact and once per reference (refit, strong default, trivial).
 *
 * @module
 */
import type { Prediction, Rows, Table } from "../../tabular/mod.ts";
import { score, writeCsv } from "../../tabular/mod.ts";
import { type ChildOutcome, runChild, signedLine, type WatchOptions } from "../execute/child.ts";
import type { SlotPool } from "../execute/slot_pool.ts";
import type { TreeData } from "../data.ts";
import { labelsOf, readPrediction } from "../execute/predictions.ts";
import { materialize } from "../execute/executor.ts";
import { pairedBootstrap, type PairedGain } from "./paired.ts";
import { pairedLoss } from "./row_loss.ts";
import { subSeed } from "../../tabular/prng.ts";
import { refitChild, refitEnsemble, type RefitRun } from "./refit.ts";
import { blend } from "../ensemble.ts";
import { scoreOrNull, strongDefault, trivialScore } from "./references.ts";
import { childCommand, type SandboxContext } from "../execute/sandbox.ts";
import type { EnsembleMember, Escape, FinalReferences, Hang, TreeState } from "../types.ts";
import type { Refusal } from "../../runtime/sandbox/mod.ts";
import { inPool } from "../in_pool.ts";
import { covered } from "../execute/harness/pool.ts";

/** The rows a final model is fit on: every dev and held-out row, in table order. */
export function refitRows(data: TreeData): Int32Array {
  return Int32Array.from([...data.task.splits.dev, ...data.task.splits.heldout]).sort();
}

/** How the gate's child was stopped, when it was: silent past its hang window, or past its wall budget. */
interface Stopped {
  hung: Hang | null;
  overBudget: { limit_ms: number; used_ms: number } | null;
}

interface Predicted extends Stopped {
  pred: Prediction | null;
  problem: string | null;
  escapes: Escape[];
  /** The lanes its child's layout left read-only (sandbox.ts), absolute. */
  refusing: Refusal[];
  childMs: number;
  fitMs: number;
  /** When its children ran (start, end on performance.now()), so children run side by side count once. */
  spans?: [number, number][];
}

export interface GateRun extends Stopped {
  score: number | null;
  problem: string | null;
  /** A held-out candidate against the incumbent on the same rows (null for the baseline or on failure). */
  paired: PairedGain | null;
  /** What the artifact's code tried outside its lane while the gate ran it (then there is no score). */
  escapes: Escape[];
  /** The lanes its child's layout left read-only, absolute (the node's record notes them). */
  refusing: Refusal[];
  childMs: number;
  fitMs: number;
}

/** The table without its target column: what a prediction child may see of held-out or test rows. */
function featuresOnly(table: Table, target: string): Table {
  return { nRows: table.nRows, columns: table.columns.filter((c) => c.name !== target) };
}

export class MergeGate {
  /** Label reads made, by part (the state counts held-out queries; this is the gate's own tally). */
  readonly reads = { heldout: 0, test: 0 };

  constructor(
    readonly data: TreeData,
    readonly sandbox: SandboxContext,
    readonly watch: Omit<WatchOptions, "label" | "stdin" | "metrics">,
    /** Long-lived prediction slots (slot_pool.ts); absent: a fresh child per prediction. */
    readonly slots: SlotPool | null = null,
  ) {}

  /** Held-out score of node `node`'s artifact (one counted query when it yields a score), and its paired
   * comparison with the incumbent's held-out predictions when there is an incumbent. */
  async heldout(s: TreeState, node: string): Promise<GateRun> {
    const rows = this.data.task.splits.heldout;
    const run = await this.#score(s, node, "heldout", rows);
    if (run.score === null || !run.pred) return run;
    this.#keep(node, run.pred);
    const inc = s.incumbent;
    if (inc === null || inc === node) return run;
    let incPred = this.#kept(inc, rows.length);
    let extraMs = 0, extraFit = 0;
    if (!incPred) {
      // Kept predictions lost (a run begun before they were kept): predicted again, no label read.
      const again = await this.#predict(s, inc, "heldout", rows);
      extraMs = again.childMs;
      extraFit = again.fitMs;
      incPred = again.pred;
      if (incPred) this.#keep(inc, incPred);
    }
    const base = { ...run, childMs: run.childMs + extraMs, fitMs: run.fitMs + extraFit };
    if (!incPred) return { ...base, paired: null };
    const { target, metric } = this.data.task;
    const sign = s.config.direction === "maximize" ? 1 : -1;
    const y = labelsOf(target, rows);
    const paired = pairedBootstrap(
      metric,
      y,
      run.pred,
      incPred,
      sign,
      subSeed(s.config.seed, `gate:${node}:${inc}`),
    );
    return { ...base, paired: { ...paired, loss: pairedLoss(metric, y, run.pred, incPred) } };
  }

  /**
   * The final test's references, each scored once, at the end: node `best`'s artifact refit on dev +
   * held-out (a sandboxed child, refit.ts; what it fit comes back for the saved model), the strong default
   * and the trivial baseline (Arrow's own code on the raw columns, fit here: references.ts).
   */
  async references(s: TreeState, best: string): Promise<{ refs: FinalReferences; refit: RefitRun }> {
    const test = this.data.task.splits.test;
    const train = refitRows(this.data);
    const { target, metric } = this.data.task;
    const y = labelsOf(target, test);
    const members = s.nodes[best]!.artifact.members;
    const refit = members
      ? await refitEnsemble(
        members,
        (m) => refitChild(this.data, this.sandbox, this.watch, s, m, train, test),
      )
      : await refitChild(this.data, this.sandbox, this.watch, s, best, train, test);
    let refitScore: number | null = null;
    if (refit.pred) {
      this.reads.test += 1;
      refitScore = scoreOrNull(score(metric, y, refit.pred));
    }
    let strong: FinalReferences["strong_default"];
    try {
      strong = {
        score: scoreOrNull(score(metric, y, strongDefault(this.data, train, test, s.config.seed))),
        problem: null,
      };
    } catch (e) {
      strong = { score: null, problem: e instanceof Error ? e.message : String(e) };
    }
    this.reads.test += 2;
    const trivial = trivialScore(this.data, train, test);
    return {
      refs: {
        refit: { node: best, score: refitScore, problem: refit.problem },
        strong_default: strong,
        trivial: { score: trivial },
      },
      refit,
    };
  }

  /** Final-test score of node `node`'s artifact: asked once per artifact, at the end. */
  test(s: TreeState, node: string): Promise<GateRun> {
    return this.#score(s, node, "test", this.data.task.splits.test);
  }

  /** The features of a part as CSV text, made once per part (the file itself lives only while a child runs). */
  #features = new Map<string, string>();
  #featuresText(part: "heldout" | "test", rows: Rows): string {
    let text = this.#features.get(part);
    if (text === undefined) {
      text = writeCsv(featuresOnly(this.data.table, this.data.task.target.name), rows);
      this.#features.set(part, text);
    }
    return text;
  }

  #keptPath(node: string): string {
    return `${this.sandbox.runDir}/.arrow/heldout/${node}.json`;
  }

  #keep(node: string, pred: Prediction): void {
    const path = this.#keptPath(node);
    Deno.mkdirSync(`${this.sandbox.runDir}/.arrow/heldout`, { recursive: true });
    const tmp = `${path}.tmp`;
    Deno.writeTextFileSync(tmp, JSON.stringify({ k: pred.k, values: Array.from(pred.values) }));
    Deno.renameSync(tmp, path);
  }

  #kept(node: string, n: number): Prediction | null {
    try {
      const p = readPrediction(Deno.readTextFileSync(this.#keptPath(node)), this.data.task.target, n);
      return p.ok ? p.value : null;
    } catch {
      return null;
    }
  }

  async #score(
    s: TreeState,
    node: string,
    part: "heldout" | "test",
    rows: Rows,
  ): Promise<GateRun & { pred: Prediction | null }> {
    const p = await this.#predict(s, node, part, rows);
    const base = {
      childMs: p.childMs,
      fitMs: p.fitMs,
      escapes: p.escapes,
      refusing: p.refusing,
      hung: p.hung,
      overBudget: p.overBudget,
      paired: null,
    };
    if (!p.pred) return { ...base, score: null, problem: p.problem, pred: null };
    const { target, metric } = this.data.task;
    this.reads[part] += 1;
    return { ...base, score: score(metric, labelsOf(target, rows), p.pred), problem: null, pred: p.pred };
  }

  /** Members' predictions made for an ensemble, by part and node (an artifact predicts the same rows the
   * same way every time, so a member shared by several ensembles is predicted once). */
  #memo = new Map<string, Prediction>();

  /** An ensemble's predictions: each member's (features only, as any node's), averaged with its weights.
   * Members not predicted yet run side by side, as many at once as the run has executors. */
  async #predictEnsemble(
    s: TreeState,
    members: readonly EnsembleMember[],
    part: "heldout" | "test",
    rows: Rows,
  ): Promise<Predicted> {
    const runs = await inPool(members, Math.max(1, s.config.executors), async (m): Promise<Predicted> => {
      const key = `${part}:${m.node}`;
      const hit = this.#memo.get(key) ?? (part === "heldout" ? this.#kept(m.node, rows.length) : null);
      const run: Predicted = hit
        ? {
          pred: hit,
          problem: null,
          escapes: [],
          refusing: [],
          childMs: 0,
          fitMs: 0,
          hung: null,
          overBudget: null,
        }
        : await this.#predict(s, m.node, part, rows);
      if (run.pred) this.#memo.set(key, run.pred);
      return run;
    });
    const spans = runs.flatMap((r) => r.spans ?? []);
    const out = {
      escapes: runs.flatMap((r) => r.escapes),
      refusing: runs.flatMap((r) => r.refusing),
      childMs: covered(spans),
      fitMs: runs.reduce((t, r) => t + r.fitMs, 0),
      hung: runs.find((r) => r.hung)?.hung ?? null,
      overBudget: runs.find((r) => r.overBudget)?.overBudget ?? null,
      spans,
    };
    const failed = runs.findIndex((r) => !r.pred);
    if (failed >= 0) {
      return { ...out, pred: null, problem: `member ${members[failed]!.node}: ${runs[failed]!.problem}` };
    }
    return { ...out, pred: blend(runs.map((r) => r.pred!), members.map((m) => m.weight)), problem: null };
  }

  /** Predictions being made, by part, node and tick: the final test scores the start and an ensemble that
   * holds it at once, and both must not write (and remove) the same features file. */
  #inflight = new Map<string, Promise<Predicted>>();

  /** The predictions of node `node`'s artifact for `rows` (features only): no label is read here. A node
   * already being predicted for the same part and tick is awaited, not run twice (its cost and escapes are
   * counted once, by the first caller). */
  async #predict(s: TreeState, node: string, part: "heldout" | "test", rows: Rows): Promise<Predicted> {
    const members = s.nodes[node]!.artifact.members;
    if (members) return await this.#predictEnsemble(s, members, part, rows);
    const key = `${part}:${node}:${s.tick}`;
    const running = this.#inflight.get(key);
    if (running) {
      const r = await running;
      return { ...r, escapes: [], refusing: [], childMs: 0, fitMs: 0, spans: [] };
    }
    const p = this.#predictNode(s, node, part, rows);
    this.#inflight.set(key, p);
    try {
      return await p;
    } finally {
      this.#inflight.delete(key);
    }
  }

  async #predictNode(s: TreeState, node: string, part: "heldout" | "test", rows: Rows): Promise<Predicted> {
    const { task } = this.data;
    const label = `${node}.${part}.${s.tick}`;
    const dir = `${this.sandbox.runDir}/.arrow/gate/${label}`;
    // The artifact as recorded, in a directory of its own at a scope's depth (its relative import of the
    // toolkit resolves as in the executor's scope): nothing an executor left in its scope counts.
    const scope = materialize(`${this.sandbox.runDir}/gate/${label}`, s, s.nodes[node]!);
    const features = `${dir}/features.csv`;
    const audit = `${dir}/audit/permissions.jsonl`;
    Deno.mkdirSync(`${dir}/audit`, { recursive: true });
    Deno.writeTextFileSync(features, this.#featuresText(part, rows));
    try {
      let nonce: string = crypto.randomUUID();
      let out: ChildOutcome;
      if (this.slots) {
        const w = this.watch;
        out = await this.slots.run({
          mode: "predict",
          node,
          scope,
          features,
          label,
          observeMs: w.observeMs,
          wallMs: w.wallMs,
          signal: w.signal,
        });
        nonce = out.nonce ?? "";
      } else {
        const cmd = childCommand(this.sandbox, "predict", node, scope, audit, features);
        out = await runChild(cmd, { ...this.watch, label, stdin: nonce, progress: true });
      }
      const fitMs = fitMsOf(out.stdout, nonce);
      const end = performance.now();
      const base = {
        childMs: out.wallMs,
        spans: [[end - out.wallMs, end]] as [number, number][],
        fitMs,
        escapes: out.escapes,
        refusing: out.refusing,
        hung: out.hung,
        overBudget: out.overBudget,
      };
      if (out.escapes.length) {
        return { ...base, pred: null, problem: "its code reached outside its lane while the gate ran it" };
      }
      const line = signedLine(out.stdout, nonce);
      if (out.exit !== 0) {
        const why = out.hung
          ? `it went silent for ${
            Math.round(out.hung.silent_ms / 1000)
          } s after ${out.hung.step} progress line(s)`
          : out.overBudget
          ? `it ran past its wall budget of ${out.overBudget.limit_ms / 1000} s`
          : `it exited with ${out.exit ?? out.signal}`;
        const detail = line.ok ? readPrediction(line.text, task.target, rows.length) : null;
        return { ...base, pred: null, problem: detail && !detail.ok ? detail.problem : why };
      }
      if (!line.ok) return { ...base, pred: null, problem: line.problem };
      const read = readPrediction(line.text, task.target, rows.length);
      if (!read.ok) return { ...base, pred: null, problem: read.problem };
      return { ...base, pred: read.value, problem: null };
    } finally {
      // The features of held-out and test rows exist only while the gate's own child runs.
      Deno.removeSync(features);
    }
  }
}

function fitMsOf(stdout: string, nonce: string): number {
  const line = signedLine(stdout, nonce);
  if (!line.ok) return 0;
  const m = /"fit_ms":\s*([0-9.eE+-]+)/.exec(line.text.slice(-200));
  return m ? Number(m[1]) || 0 : 0;
}
