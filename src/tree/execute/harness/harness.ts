/**
 * The child program every tree-mode measurement runs in: `harness.ts <mode> <task.json> <dev.csv> <scope>
 * <node> [<features.csv>]`, under the node's lane (read its dev data, its scope and the toolkit; write its
 * scope, executors only). It never runs untrusted code itself: the feature steps of every fold, and of
 * every prediction, run in a fresh worker (fold_worker.ts) that can read nothing of any scope, gives up even
 * the toolkit once its modules are loaded (bundled as `data:` URLs, bundle.ts), is handed that fit's rows
 * as JSON text and is ended after it — so the hypothesis' code has nothing to read and nowhere to write,
 * whatever it tries shows up in the permission audit, and nothing it remembers from one fold reaches the
 * next. The encoders and the model are fit here, on the rows the worker handed back. A slot makes its
 * workers between jobs (their lane is the same for every job), and each fit's worker is handed its rows
 * while the fit before it runs.
 *
 * The one exception is Arrow's own code: an artifact whose every step file hashes to one that Arrow
 * recorded, when it wrote the artifact, as written by its library (`library` in artifact.json, checked there
 * against the library's templates) runs its steps here, beside the encoders — as fast as the model, and no
 * more trusted than the encoders are. A fresh isolate per fit costs ~36 ms of CPU; a cycle of library
 * hypotheses needs none.
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
 * - `serve` (a long-lived slot, src/tree/execute/slot_pool.ts): the same jobs, one after another, each read from stdin
 *   as a JSON line `{"args": [mode, task, dev, scope, node, features?], "nonce", "progress"}`; each ends with
 *   the line `<nonce> end {"exit": N}` on stdout. Nothing of a job outlives it but this process's own
 *   code (the library's steps included): untrusted code still runs only in per-fit workers, ended after
 *   their fit, so a slot saves the start-up of a process (and of the toolkit's modules) per job, and
 *   changes nothing the artifact can reach. A slot that hangs or runs over is killed whole by Arrow and
 *   replaced.
 *
 * @module
 */
import {
  allRows,
  encodeState,
  type FeatureTransform,
  fitPipeline,
  fitPipelineOn,
  type FittedPipeline,
  fromRows,
  guardTransform,
  inferSchema,
  permutationImportance,
  type PipelineSpec,
  type Prediction,
  predictPipeline,
  predictTable,
  score,
  subSeed,
  type Table,
  toRows,
  transformedRows,
  TransformError,
} from "../../../tabular/mod.ts";
import { onAlive } from "../../../tabular/alive.ts";
import { rowLosses } from "../../gate/row_loss.ts";
import { bundleArtifact, type BundledStep, BundleError } from "./bundle.ts";
import { fromLibrary, libraryTransform, parseArtifact, StepError } from "./compose.ts";
import type { StepsInit } from "./fold_worker.ts";
import { clock, covered, rowsOf, type StepsRun, stepsWorker, WorkerPool } from "./pool.ts";
import { loadSteps } from "./steps.ts";
import { cachedTable, devData, screenFolds, type TaskFile } from "./inputs.ts";
import { enc, fail, finite, JobEnd, readNonce, stderr, stdout, writeAll } from "./io.ts";

/** This process's workers for untrusted step code (a slot keeps spares between jobs). */
const pool = new WorkerPool();

type Mode = "execute" | "recompute" | "screen" | "predict" | "refit";

/**
 * One job: `args` as on the command line, `nonce` (null for an executor) to sign printed results with,
 * `progressPath` where a child without metrics logs its signs of life. Returns the exit code.
 */
async function runJob(args: string[], nonce: string | null, progressPath: string | null): Promise<number> {
  const opened: Deno.FsFile[] = [];
  const live = new Set<Worker>();
  try {
    await job(args, nonce, progressPath, opened, live);
    return 0;
  } catch (e) {
    if (e instanceof JobEnd) return e.code;
    throw e;
  } finally {
    // A worker started ahead for a fit that never came (the job failed first) ends with the job, and so do
    // the job's signs of life (its files close here).
    onAlive(null);
    for (const w of live) w.terminate();
    for (const f of opened) f.close();
  }
}

/** Least time between two of a fit's signs of life in the progress log (well under any hang clock's). */
const ALIVE_MS = 100;

async function job(
  args: string[],
  nonce: string | null,
  progressPath: string | null,
  opened: Deno.FsFile[],
  live: Set<Worker>,
): Promise<void> {
  const [mode, taskPath, devPath, scope, node, featuresPath] = args as [
    Mode,
    string,
    string,
    string,
    string | undefined,
    string | undefined,
  ];
  if (
    !["execute", "recompute", "screen", "predict", "refit"].includes(mode) || !taskPath || !devPath || !scope
  ) {
    fail(
      2,
      "usage: harness.ts execute|recompute|screen|predict|refit <task.json> <dev.csv> <scope> <node> " +
        "[<features.csv>]",
      null,
      null,
    );
  }
  const t0 = performance.now();
  const task = JSON.parse(Deno.readTextFileSync(taskPath)) as TaskFile;
  const manifest = parseArtifact(JSON.parse(Deno.readTextFileSync(`${scope}/artifact.json`)));
  const keep = (f: Deno.FsFile) => (opened.push(f), f);
  const metrics = mode === "execute"
    ? keep(Deno.openSync(`${scope}/metrics.jsonl`, { append: true, create: true }))
    : null;
  const results = mode === "execute"
    ? keep(Deno.openSync(`${scope}/results.json`, { write: true, create: true, truncate: true }))
    : null;
  // Signs of life for the hang clock: metrics lines (executor) or lines in the progress file Arrow named.
  const progressFile = mode !== "execute" && progressPath
    ? keep(Deno.openSync(progressPath, { append: true, create: true }))
    : null;
  let loadedOnce = false;
  const progress = (what: Record<string, unknown>) => {
    const f = metrics ?? progressFile;
    if (f) writeAll(f, JSON.stringify(what) + "\n");
  };
  // A fold's fit can outlast the hang clock (many rows, classes or stages): the fitting loops' signs of life
  // become progress lines, at most one each ALIVE_MS.
  let lastAlive = performance.now();
  onAlive(() => {
    const now = performance.now();
    if (now - lastAlive < ALIVE_MS) return;
    lastAlive = now;
    progress({ phase: "fitting" });
  });
  const onLoaded = () => {
    if (loadedOnce) return;
    loadedOnce = true;
    progress({ step: 0, phase: "loaded" });
  };
  // The artifact's steps run in fresh workers (one per fit) unless they are all the library's own code
  // (checked by content hash); the encoders and the model are fit here.
  let bundled: BundledStep[] = [];
  try {
    bundled = bundleArtifact(scope, manifest.steps);
  } catch (e) {
    if (e instanceof BundleError) fail(3, new StepError("fit", e.message).message, results, nonce, node);
    throw e;
  }
  /** The steps for workers (none when there are none, or when they all run here). */
  let modules: BundledStep[] = bundled;
  let inRealm: FeatureTransform | null = null;
  if (fromLibrary(manifest, bundled)) {
    try {
      inRealm = libraryTransform(await loadSteps(bundled), task.target);
    } catch (e) {
      if (e instanceof StepError) fail(3, e.message, results, nonce, node);
      throw e;
    }
    modules = [];
  }
  const init: StepsInit = {
    kind: "init",
    modules: modules.map(({ path, url }) => ({ path, url })),
    target: task.target,
  };
  const { table, target, splits } = devData(taskPath, devPath, task);
  if (target.task !== "regression" && target.classes.join("\u0000") !== task.classes.join("\u0000")) {
    fail(
      2,
      `Cannot use the dev rows: their classes differ from the task's (${task.classes.join(", ")})`,
      null,
      nonce,
    );
  }
  let features: Table | null = null;
  const predicting = mode === "predict" || mode === "refit";
  if (predicting) {
    if (!featuresPath) fail(2, "Cannot predict: no features file given", null, nonce);
    const { [task.target]: _, ...featureKinds } = task.kinds;
    features = cachedTable(featuresPath!, featureKinds);
  }
  /** Each fit: the training rows of the dev table, and which rows of which table to predict (a screen: the
   * first folds only). */
  const folds = mode === "screen"
    ? splits.folds.slice(0, screenFolds(splits.folds.map((f) => f.valid.length)))
    : splits.folds;
  const fits = features
    ? [{ train: allRows(table), other: features, rows: allRows(features) }]
    : folds.map((f) => ({ train: f.train, other: table, rows: f.valid }));
  if (modules.length) pool.want(fits.length);
  // The linear model has no seed (it is deterministic); a GBDT takes the run's.
  const model = manifest.model.kind === "linear"
    ? {
      kind: "linear" as const,
      alpha: manifest.model.alpha ?? 1,
      ...(manifest.model.tune !== undefined ? { tune: manifest.model.tune } : {}),
    }
    : { ...manifest.model, seed: task.seed };
  /** The last fit's pipeline (a refit prints it: the saved model); its steps' state only when they ran here. */
  let fitted: FittedPipeline | null = null;
  /** When fitting ran (the model here, the artifact's steps in their workers): the job's fit_ms. */
  const spans: [number, number][] = [];
  const runs: StepsRun[] = [];
  /** Starts fit `i`'s worker on its rows (a fit ahead of the one being fit, so it works meanwhile). */
  const start = (i: number) => {
    if (!modules.length || i >= fits.length || runs[i]) return;
    const f = fits[i]!;
    const run = stepsWorker(pool, init, onLoaded, live);
    run.send(JSON.stringify(toRows(table, f.train)), JSON.stringify(toRows(f.other, f.rows, [task.target])));
    runs[i] = run;
  };
  if (!modules.length) onLoaded();
  /** The last fit's validation rows as its model read them (a recomputation measures importances on them). */
  let lastEval: Table | null = null;
  /** Fit `i`: the artifact's steps (in its worker), then the encoders and the model on their output. */
  const fitPredict = async (i: number): Promise<Prediction> => {
    const f = fits[i]!;
    start(i);
    start(i + 1);
    try {
      if (!modules.length) {
        const spec: PipelineSpec = { target, transform: inRealm, model };
        const p0 = clock();
        fitted = fitPipeline(table, f.train, spec);
        const pred = predictPipeline(fitted, f.other, f.rows, spec);
        spans.push([p0, clock()]);
        if (mode === "recompute") lastEval = transformedRows(fitted, f.other, f.rows, spec);
        return pred;
      }
      const r = await runs[i]!.reply;
      if (r.phase === "failed") fail(r.code, r.message, results, nonce, node);
      spans.push(r.ran);
      // The steps' output, read into the schema its training rows fix (as the pipeline reads any transform's).
      const trained = rowsOf(r.train, f.train.length, "fit");
      const schema = guardTransform("fit", () => inferSchema(trained, "the transform's output"));
      const evaluated = fromRows(rowsOf(r.other, f.rows.length, "transform"), schema);
      const spec: PipelineSpec = { target, transform: null, model };
      const p0 = clock();
      fitted = fitPipelineOn(fromRows(trained, schema), f.train, spec);
      const pred = predictTable(fitted, evaluated);
      spans.push([p0, clock()]);
      lastEval = evaluated;
      return pred;
    } catch (e) {
      if (e instanceof TransformError || e instanceof RangeError || e instanceof TypeError) {
        fail(3, e.message, results, nonce, node);
      }
      throw e;
    }
  };
  if (predicting) {
    const pred = await fitPredict(0);
    const fitMs = covered(spans);
    const out: Record<string, unknown> = { k: pred.k, values: finite(pred.values), fit_ms: fitMs };
    // A refit also hands back what it fit, to be saved as the run's model; steps that ran in a worker kept
    // their state there, so only the library's (run here) come with theirs.
    const f = fitted as FittedPipeline | null;
    if (mode === "refit" && f) {
      out.model = {
        steps_state: inRealm ? encodeState(f.state) : null,
        schema: f.schema,
        encoding: f.encoding,
        gbdt: f.model,
      };
    }
    stdout(enc.encode(`${nonce} ${JSON.stringify(out)}\n`));
    return;
  }
  const foldPreds: number[][] = [];
  const foldScores: number[] = [];
  const importance = new Map<string, number>();
  let k = 1;
  for (let i = 0; i < fits.length; i++) {
    const fold = splits.folds[i]!;
    const pred = await fitPredict(i);
    k = pred.k;
    foldPreds.push(finite(pred.values));
    if (mode === "recompute" && fitted && lastEval) {
      // Which columns the model relies on, on the rows it did not see (dev rows only: this fold's
      // validation rows): the evidence the coordinator reads as importances (ideate/evidence.ts).
      const y = Int32Array.from(fold.valid, (row) => target.y[row]!);
      const loss = (p: Prediction) => rowLosses(task.metric, y, p);
      for (const c of permutationImportance(fitted, lastEval, loss, subSeed(task.seed, `fold:${i}`))) {
        importance.set(c.column, (importance.get(c.column) ?? 0) + c.gain / fits.length);
      }
    }
    if (metrics) {
      const y = Float64Array.from(fold.valid, (row) => target.y[row]!);
      const s = score(task.metric, y, pred);
      foldScores.push(s);
      writeAll(metrics, JSON.stringify({ step: i + 1, [task.metric]: s }) + "\n");
    } else progress({ step: i + 1 });
  }
  const fitMs = covered(spans);
  if (mode === "screen") {
    stdout(enc.encode(`${nonce} ${JSON.stringify({ k, folds: foldPreds, fit_ms: fitMs })}\n`));
    return;
  }
  if (mode === "recompute") {
    const imp = Object.fromEntries([...importance].map(([c, g]) => [c, Number(g.toPrecision(6))]));
    stdout(
      enc.encode(`${nonce} ${JSON.stringify({ k, folds: foldPreds, importance: imp, fit_ms: fitMs })}\n`),
    );
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
}

/** `serve`: jobs from stdin, one JSON line each, until stdin ends. */
async function serve(): Promise<void> {
  pool.refill();
  const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream());
  let buffered = "";
  for await (const chunk of lines) {
    buffered += chunk;
    for (let at = buffered.indexOf("\n"); at >= 0; at = buffered.indexOf("\n")) {
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      if (!line.trim()) continue;
      const j = JSON.parse(line) as { args: string[]; nonce: string; progress: string | null };
      let code = 1;
      pool.busy = true;
      try {
        code = await runJob(j.args, j.args[0] === "execute" ? null : j.nonce, j.progress);
      } catch (e) {
        // The harness' own failure (an unreadable file, a bug): this job fails, the slot goes on.
        stderr(enc.encode(`${e instanceof Error ? e.stack ?? e.message : String(e)}\n`));
      }
      stdout(enc.encode(`${j.nonce} end ${JSON.stringify({ exit: code })}\n`));
      pool.busy = false;
      pool.refill();
    }
  }
}

/**
 * The harness's entry: `serve`, or one job. Run as a script (`deno run … harness.ts <mode> …`) or from the
 * arrow binary itself (`arrow __worker tree_harness <mode> …`, the self-executing mode of a compiled arrow).
 */
export async function main(args: string[]): Promise<number> {
  if (args[0] === "serve") {
    await serve();
    return 0;
  }
  const oneNonce = args[0] === "execute" ? null : readNonce();
  // A standby whose line never came (its executor failed): nothing to do.
  if (oneNonce === "") return 0;
  const progressEnv = args[0] === "execute" ? null : Deno.env.get("ARROW_PROGRESS") ?? null;
  return await runJob(args, oneNonce, progressEnv);
}

if (import.meta.main) Deno.exit(await main(Deno.args));
