/**
 * The final model: the admitted artifact refit on dev + held-out rows in a sandboxed harness child (mode
 * `refit`), which predicts the final-test rows' features and hands back what it fit; the coordinator scores
 * the predictions against test labels only it holds. The child's training rows (dev + held-out, with labels)
 * are written to a private directory under `.arrow/refit/` that exists only while it runs and that no
 * executor's lane names; the test rows' features likewise.
 *
 * @module
 */
import { parseBounded } from "../../runtime/bounded_json.ts";
import { type Prediction, type Rows, type Table, writeCsv } from "../../tabular/mod.ts";
import { runChild, signedLine, type WatchOptions } from "../execute/child.ts";
import type { TreeData } from "../data.ts";
import { materialize } from "../execute/executor.ts";
import { taskText } from "../data.ts";
import { readPrediction } from "../execute/predictions.ts";
import { childCommand, type SandboxContext } from "../execute/sandbox.ts";
import { blend } from "../ensemble.ts";
import type { EnsembleMember, Escape, TreeState } from "../types.ts";
import type { Refusal } from "../../runtime/sandbox/mod.ts";

/** What the refit child fit (JSON as it printed it): the saved model's pieces. */
export interface FittedModel {
  steps_state: unknown;
  schema: { columns: { name: string; kind: string }[] } | null;
  encoding: unknown;
  gbdt: unknown;
}

export interface RefitRun {
  pred: Prediction | null;
  model: FittedModel | null;
  problem: string | null;
  childMs: number;
  fitMs: number;
  /** The scope the child ran (the artifact as recorded: artifact.json and steps/). */
  scope: string;
  /** What its code tried outside its lane (then there is no prediction), and the lanes its child's layout
   * left read-only (absolute): an ensemble's, every member's. */
  escapes: Escape[];
  refusing: Refusal[];
  /** An ensemble's refit: each member refit alone (its own child and scope), `pred` their weighted average. */
  members?: { node: string; weight: number; run: RefitRun }[];
}

/**
 * An ensemble refit member by member (`refit` runs one member's child), its predictions the members'
 * weighted average; the first member that fails fails the whole, named.
 */
export async function refitEnsemble(
  members: readonly EnsembleMember[],
  refit: (node: string) => Promise<RefitRun>,
): Promise<RefitRun> {
  const runs: { node: string; weight: number; run: RefitRun }[] = [];
  for (const m of members) {
    const run = await refit(m.node);
    runs.push({ node: m.node, weight: m.weight, run });
    if (!run.pred) break;
  }
  const childMs = runs.reduce((t, r) => t + r.run.childMs, 0);
  const fitMs = runs.reduce((t, r) => t + r.run.fitMs, 0);
  const base = {
    childMs,
    fitMs,
    scope: runs[0]?.run.scope ?? "",
    members: runs,
    escapes: runs.flatMap((r) => r.run.escapes),
    refusing: runs.flatMap((r) => r.run.refusing),
  };
  const bad = runs.find((r) => !r.run.pred);
  if (bad || !runs.length) {
    return {
      ...base,
      pred: null,
      model: null,
      problem: `member ${bad?.node}: ${bad?.run.problem ?? "none"}`,
    };
  }
  const pred = blend(runs.map((r) => r.run.pred!), runs.map((r) => r.weight));
  return { ...base, pred, model: null, problem: null };
}

function featuresOnly(table: Table, target: string): Table {
  return { nRows: table.nRows, columns: table.columns.filter((c) => c.name !== target) };
}

/**
 * Fits node `node`'s artifact on the table's `train` rows (the gate passes dev + held-out) in a sandboxed
 * child and predicts `testRows` from their features: no label is read here.
 */
export async function refitChild(
  data: TreeData,
  sandbox: SandboxContext,
  watch: Omit<WatchOptions, "label" | "stdin" | "metrics">,
  s: TreeState,
  node: string,
  train: Rows,
  testRows: Rows,
): Promise<RefitRun> {
  const { task, table } = data;
  const label = `${node}.refit.${s.tick}`;
  const dir = `${sandbox.runDir}/.arrow/refit/${label}`;
  const gateDir = `${sandbox.runDir}/.arrow/gate/${label}`;
  const scope = materialize(`${sandbox.runDir}/gate/${label}`, s, s.nodes[node]!);
  Deno.mkdirSync(dir, { recursive: true });
  Deno.mkdirSync(`${gateDir}/audit`, { recursive: true });
  const trainFile = `${dir}/train.csv`;
  const taskFile = `${dir}/task.json`;
  const features = `${gateDir}/features.csv`;
  Deno.writeTextFileSync(trainFile, writeCsv(table, train));
  const all = Array.from({ length: train.length }, (_, i) => i);
  Deno.writeTextFileSync(
    taskFile,
    taskText(data, { seed: s.config.seed, dev: all, heldout: [], test: [], folds: [] }, s.config.seed),
  );
  Deno.writeTextFileSync(features, writeCsv(featuresOnly(table, task.target.name), testRows));
  const ctx: SandboxContext = { ...sandbox, dataDir: dir, taskFile, devFile: trainFile };
  const nonce = crypto.randomUUID();
  try {
    const cmd = childCommand(ctx, "refit", node, scope, `${gateDir}/audit/permissions.jsonl`, features);
    const out = await runChild(cmd, { ...watch, label, stdin: nonce, progress: true });
    const base = { childMs: out.wallMs, fitMs: 0, scope, escapes: out.escapes, refusing: out.refusing };
    const none = (problem: string) => ({ ...base, pred: null, model: null, problem });
    if (out.escapes.length) return none("its code reached outside its lane while the refit ran");
    if (out.exit !== 0) {
      return none(
        out.hung
          ? "it went silent past its hang window"
          : out.overBudget
          ? `it ran past its wall budget of ${out.overBudget.limit_ms / 1000} s`
          : `it exited with ${out.exit ?? out.signal}: ${out.stderrTail.slice(-1)[0] ?? ""}`,
      );
    }
    const line = signedLine(out.stdout, nonce);
    if (!line.ok) return none(line.problem);
    const parsed = parseBounded(line.text, { maxBytes: 64 << 20, maxDepth: 64 });
    if (!parsed.ok) return none(parsed.error);
    const o = parsed.value as Record<string, unknown>;
    const read = readPrediction(JSON.stringify({ k: o.k, values: o.values }), task.target, testRows.length);
    if (!read.ok) return none(read.problem);
    const fitMs = typeof o.fit_ms === "number" ? o.fit_ms : 0;
    const model = (o.model ?? null) as FittedModel | null;
    return { ...base, fitMs, pred: read.value, model, problem: null };
  } finally {
    // Held-out labels and test features exist on disk only while the refit child runs.
    Deno.removeSync(dir, { recursive: true });
    Deno.removeSync(features);
  }
}
