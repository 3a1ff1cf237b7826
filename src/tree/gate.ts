/**
 * The merge gate: the only code in tree mode that reads held-out labels (and, once at the end, test
 * labels). A candidate's artifact is fit on every dev row in a sandboxed child that sees the held-out rows'
 * features and nothing else of them — written to a private file that exists only while that child runs —
 * and the child's predictions are scored here. Whether the score admits the node is the step function's
 * call (ACCEPT_EPS over the incumbent); how many queries were made is counted there and capped by
 * `--heldout-budget`.
 *
 * @module
 */
import type { Rows, Table } from "../tabular/mod.ts";
import { writeCsv } from "../tabular/mod.ts";
import { runChild, signedLine, type WatchOptions } from "./child.ts";
import type { TreeData } from "./data.ts";
import { scorePrediction } from "./predictions.ts";
import { materialize } from "./executor.ts";
import { childCommand, type SandboxContext } from "./sandbox.ts";
import type { Escape, TreeState } from "./types.ts";

export interface GateRun {
  score: number | null;
  problem: string | null;
  /** What the artifact's code tried outside its lane while the gate ran it (then there is no score). */
  escapes: Escape[];
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
  ) {}

  /** Held-out score of node `node`'s artifact (one counted query when it yields a score). */
  heldout(s: TreeState, node: string): Promise<GateRun> {
    return this.#score(s, node, "heldout", this.data.task.splits.heldout);
  }

  /** Final-test score of node `node`'s artifact: asked once per artifact, at the end. */
  test(s: TreeState, node: string): Promise<GateRun> {
    return this.#score(s, node, "test", this.data.task.splits.test);
  }

  async #score(s: TreeState, node: string, part: "heldout" | "test", rows: Rows): Promise<GateRun> {
    const { table, task } = this.data;
    const label = `${node}.${part}.${s.tick}`;
    const dir = `${this.sandbox.runDir}/.arrow/gate/${label}`;
    // The artifact as recorded, in a directory of its own at a scope's depth (its relative import of the
    // toolkit resolves as in the executor's scope): nothing an executor left in its scope counts.
    const scope = materialize(`${this.sandbox.runDir}/gate/${label}`, s, s.nodes[node]!);
    const features = `${dir}/features.csv`;
    const audit = `${dir}/audit/permissions.jsonl`;
    Deno.mkdirSync(`${dir}/audit`, { recursive: true });
    Deno.writeTextFileSync(features, writeCsv(featuresOnly(table, task.target.name), rows));
    const nonce = crypto.randomUUID();
    try {
      const cmd = childCommand(this.sandbox, "predict", node, scope, audit, features);
      const out = await runChild(cmd, { ...this.watch, label, stdin: nonce });
      const fitMs = fitMsOf(out.stdout, nonce);
      const base = { childMs: out.wallMs, fitMs, escapes: out.escapes };
      if (out.escapes.length) {
        return { ...base, score: null, problem: "its code reached outside its lane while the gate ran it" };
      }
      if (out.exit !== 0) {
        const why = out.hung
          ? "it went silent"
          : out.overBudget
          ? "it ran past its wall budget"
          : `it exited with ${out.exit ?? out.signal}`;
        const line = signedLine(out.stdout, nonce);
        const detail = line.ok ? scorePrediction(line.text, task.target, rows, task.metric) : null;
        return { ...base, score: null, problem: detail && !detail.ok ? detail.problem : why };
      }
      const line = signedLine(out.stdout, nonce);
      if (!line.ok) return { ...base, score: null, problem: line.problem };
      const scored = scorePrediction(line.text, task.target, rows, task.metric);
      if (!scored.ok) return { ...base, score: null, problem: scored.problem };
      this.reads[part] += 1;
      return { ...base, score: scored.value, problem: null };
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
