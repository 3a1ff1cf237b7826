/**
 * The child program every tree-mode measurement runs in: `harness.ts <mode> <task.json> <dev.csv> <scope>
 * <node> [<features.csv>]`. It reads its inputs and imports the artifact's modules with no more than the
 * node's lane (read its dev data, its scope and the toolkit; write its scope, executors only), then gives
 * up every read and write permission (keeping only the files it opened) before calling `fit` and
 * `transform` — so the hypothesis' code runs with nothing to read and nowhere to write, and whatever it
 * tries shows up in the permission audit.
 *
 * - `execute` (the executor): cross-validates on the dev folds, appends one line per fold to
 *   `metrics.jsonl` and writes its claim to `results.json` in the scope.
 * - `recompute` (acceptance): cross-validates again and prints each fold's predictions; Arrow scores them.
 * - `predict` (merge gate, final test): fits on every dev row and prints predictions for the rows of a
 *   features file that holds no target column; Arrow scores them against labels only it holds.
 *
 * Printed results start with a nonce read from stdin before the artifact is loaded, so code in the
 * artifact cannot forge them. Exit 0 done, 3 the artifact's code failed (its lesson is the message), 2 bad
 * input.
 *
 * @module
 */
import {
  allRows,
  type ColumnKind,
  fitPipeline,
  makeTarget,
  type MetricName,
  type PipelineSpec,
  predictPipeline,
  readCsvFile,
  score,
  splitsFromJson,
  type Task,
  TransformError,
} from "../../src/tabular/mod.ts";
import { chain, loadSteps, parseArtifact } from "./compose.ts";

type Mode = "execute" | "recompute" | "predict";

interface TaskFile {
  target: string;
  task: Task;
  classes: string[];
  metric: MetricName;
  kinds: Record<string, ColumnKind>;
  splits: unknown;
  seed: number;
  data_hash: string;
  split_hash: string;
  protocol_version: string;
}

const enc = new TextEncoder();
const stdout = Deno.stdout.writeSync.bind(Deno.stdout);
const stderr = Deno.stderr.writeSync.bind(Deno.stderr);

function readNonce(): string {
  const buf = new Uint8Array(128);
  let text = "";
  while (!text.includes("\n")) {
    const n = Deno.stdin.readSync(buf);
    if (!n) break;
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
  return text.trim();
}

function writeAll(f: Deno.FsFile, text: string): void {
  const bytes = enc.encode(text);
  for (let off = 0; off < bytes.length;) off += f.writeSync(bytes.subarray(off));
}

function fail(code: number, message: string, results: Deno.FsFile | null, nonce: string | null): never {
  const reason = message.slice(0, 2000);
  if (results) writeAll(results, JSON.stringify({ node: Deno.args[4] ?? "", error: reason }) + "\n");
  if (nonce) stdout(enc.encode(`${nonce} ${JSON.stringify({ error: reason })}\n`));
  stderr(enc.encode(`${reason}\n`));
  Deno.exit(code);
}

function finite(values: ArrayLike<number>): number[] {
  return Array.from(values, (v) => (Number.isFinite(v) ? v : 0));
}

async function main(): Promise<void> {
  const [mode, taskPath, devPath, scope, node, featuresPath] = Deno.args as [
    Mode,
    string,
    string,
    string,
    string | undefined,
    string | undefined,
  ];
  if (!["execute", "recompute", "predict"].includes(mode) || !taskPath || !devPath || !scope) {
    fail(
      2,
      "usage: harness.ts execute|recompute|predict <task.json> <dev.csv> <scope> <node> [<features.csv>]",
      null,
      null,
    );
  }
  const nonce = mode === "execute" ? null : readNonce();
  // A standby whose line never came (its executor failed): nothing to do.
  if (nonce === "") Deno.exit(0);
  const t0 = performance.now();
  const task = JSON.parse(Deno.readTextFileSync(taskPath)) as TaskFile;
  const table = readCsvFile(devPath, { types: task.kinds });
  const target = makeTarget(table, task.target, task.task);
  if (target.task !== "regression" && target.classes.join("\u0000") !== task.classes.join("\u0000")) {
    fail(
      2,
      `Cannot use the dev rows: their classes differ from the task's (${task.classes.join(", ")})`,
      null,
      nonce,
    );
  }
  const splits = splitsFromJson(task.splits, table.nRows);
  const manifest = parseArtifact(JSON.parse(Deno.readTextFileSync(`${scope}/artifact.json`)));
  const { [task.target]: _, ...featureKinds } = task.kinds;
  const features = mode === "predict" && featuresPath
    ? readCsvFile(featuresPath, { types: featureKinds })
    : null;
  const metrics = mode === "execute"
    ? Deno.openSync(`${scope}/metrics.jsonl`, { append: true, create: true })
    : null;
  const results = mode === "execute"
    ? Deno.openSync(`${scope}/results.json`, { write: true, create: true, truncate: true })
    : null;
  // The artifact's modules load with the lane's own permissions (module loading needs read access to
  // them); once loaded, nothing is readable or writable any more, except through the files already open.
  let spec: PipelineSpec;
  try {
    const steps = await loadSteps(scope, manifest);
    spec = { target, transform: chain(steps, task.target), model: { ...manifest.model, seed: task.seed } };
  } catch (e) {
    fail(3, e instanceof Error ? e.message : String(e), results, nonce);
  }
  Deno.permissions.revokeSync({ name: "read" });
  Deno.permissions.revokeSync({ name: "write" });
  // A first sign of life once the inputs are read and the code is loaded (overwatch's hang clock).
  if (metrics) writeAll(metrics, JSON.stringify({ step: 0, phase: "loaded" }) + "\n");
  let fitMs = 0;
  try {
    if (mode === "predict") {
      if (!features) fail(2, "Cannot predict: no features file given", null, nonce);
      const f0 = performance.now();
      const fitted = fitPipeline(table, allRows(table), spec);
      const pred = predictPipeline(fitted, features, allRows(features), spec);
      fitMs = performance.now() - f0;
      stdout(
        enc.encode(`${nonce} ${JSON.stringify({ k: pred.k, values: finite(pred.values), fit_ms: fitMs })}\n`),
      );
      return;
    }
    const foldPreds: number[][] = [];
    const foldScores: number[] = [];
    let k = 1;
    splits.folds.forEach((fold, i) => {
      const f0 = performance.now();
      const fitted = fitPipeline(table, fold.train, spec);
      const pred = predictPipeline(fitted, table, fold.valid, spec);
      fitMs += performance.now() - f0;
      k = pred.k;
      foldPreds.push(finite(pred.values));
      if (metrics) {
        const y = Float64Array.from(fold.valid, (r) => target.y[r]!);
        const s = score(task.metric, y, pred);
        foldScores.push(s);
        writeAll(metrics, JSON.stringify({ step: i + 1, [task.metric]: s }) + "\n");
      }
    });
    if (mode === "recompute") {
      stdout(enc.encode(`${nonce} ${JSON.stringify({ k, folds: foldPreds, fit_ms: fitMs })}\n`));
      return;
    }
    const mean = foldScores.reduce((s, x) => s + x, 0) / foldScores.length;
    writeAll(
      results!,
      JSON.stringify({
        node: node ?? "",
        score: mean,
        folds: foldScores,
        metric: task.metric,
        data_hash: task.data_hash,
        split_hash: task.split_hash,
        protocol_version: task.protocol_version,
        seed: task.seed,
        artifact: "artifact.json",
        wall_s: (performance.now() - t0) / 1000,
        fit_ms: fitMs,
      }) + "\n",
    );
  } catch (e) {
    if (e instanceof TransformError || e instanceof RangeError || e instanceof TypeError) {
      fail(3, e.message, results, nonce);
    }
    throw e;
  }
}

await main();
Deno.exit(0);
