/**
 * The child program every tree-mode measurement runs in: `harness.ts <mode> <task.json> <dev.csv> <scope>
 * <node> [<features.csv>]`, under the node's lane (read its dev data, its scope and the toolkit; write its
 * scope, executors only). It never runs the artifact's code itself: the feature steps of every fold, and of
 * every prediction, run in a fresh worker (fold_worker.ts) that can read nothing once its modules are
 * loaded, is handed that fit's rows and is ended after it — so the hypothesis' code has nothing to read and
 * nowhere to write, whatever it tries shows up in the permission audit, and nothing it remembers from one
 * fold reaches the next. The encoders and the model are fit here, on the rows the worker handed back. Each
 * worker is started while the fit before it runs, so its start-up is mostly hidden.
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
 * - `serve` (a long-lived slot, src/tree/server.ts): the same jobs, one after another, each read from stdin
 *   as a JSON line `{"args": [mode, task, dev, scope, node, features?], "nonce", "progress"}`; each ends with
 *   the line `<nonce> end {"exit": N}` on stdout. Nothing of a job outlives it but this process's own
 *   code: the artifact's code still runs only in per-fit workers, ended after their fit, so a slot saves
 *   the start-up of a process (and of the toolkit's modules) per job, and changes nothing the artifact can
 *   reach. A slot that hangs or runs over is killed whole by Arrow and replaced.
 *
 * @module
 */
import {
  allRows,
  type ColumnKind,
  type FeatureTransform,
  fitPipeline,
  makeTarget,
  type MetricName,
  type PipelineSpec,
  type Prediction,
  predictPipeline,
  readCsvFile,
  type Row,
  type Rows,
  score,
  type Splits,
  splitsFromJson,
  type Table,
  type Task,
  TransformError,
} from "../../src/tabular/mod.ts";
import { toRows } from "../../src/tabular/rows.ts";
import { parseArtifact } from "./compose.ts";
import type { StepsInit, StepsJob, StepsReply } from "./fold_worker.ts";

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

/** The dev rows as last read, and which files (path, size, mtime) they were read from. */
let devCache: { key: string; table: Table; target: ReturnType<typeof makeTarget>; splits: Splits } | null =
  null;

/**
 * The dev table, its target and folds: read once per slot while the files stay the same (Arrow writes them
 * once per run; a job that finds them changed reads them again).
 */
function devData(taskPath: string, devPath: string, task: TaskFile) {
  const stamp = (p: string) => {
    const s = Deno.statSync(p);
    return `${p}\u0000${s.size}\u0000${s.mtime?.getTime() ?? ""}`;
  };
  const key = `${stamp(taskPath)}\u0000${stamp(devPath)}`;
  if (devCache?.key !== key) {
    const table = readCsvFile(devPath, { types: task.kinds });
    const target = makeTarget(table, task.target, task.task);
    devCache = { key, table, target, splits: splitsFromJson(task.splits, table.nRows) };
  }
  return devCache;
}

/** How a job ended early: its exit code (2 bad input, 3 the artifact's code failed). */
class JobEnd extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

function fail(
  code: number,
  message: string,
  results: Deno.FsFile | null,
  nonce: string | null,
  node = "",
): never {
  const reason = message.slice(0, 2000);
  if (results) writeAll(results, JSON.stringify({ node, error: reason }) + "\n");
  if (nonce) stdout(enc.encode(`${nonce} ${JSON.stringify({ error: reason })}\n`));
  stderr(enc.encode(`${reason}\n`));
  throw new JobEnd(code, reason);
}

function finite(values: ArrayLike<number>): number[] {
  return Array.from(values, (v) => (Number.isFinite(v) ? v : 0));
}

const TOOLKIT = new URL("../../src/tabular/", import.meta.url).pathname;
const HERE = new URL("./", import.meta.url).pathname;
const WORKER = new URL("./fold_worker.ts", import.meta.url).href;

interface StepsRun {
  run(train: Row[], other: Row[]): Promise<StepsReply>;
}

/**
 * A fresh worker for one fit of the artifact's steps, started (and its modules loaded) ahead of its job so
 * its start-up overlaps the fit before it; it is ended once it answered. `onLoaded` is called when its code
 * is loaded (a sign of life for the hang clock). Only the worker's own replies count: anything else posted
 * is ignored, and rows that do not fit are refused by the pipeline like any transform's output.
 */
function stepsWorker(init: StepsInit, onLoaded: () => void, live: Set<Worker>): StepsRun {
  const w = new Worker(WORKER, {
    type: "module",
    deno: {
      permissions: {
        read: [init.scope, TOOLKIT, HERE],
        write: false,
        net: false,
        env: false,
        run: false,
        ffi: false,
        sys: false,
        import: false,
      },
    },
  });
  let settle: (r: StepsReply) => void = () => {};
  const reply = new Promise<StepsReply>((r) => (settle = r));
  w.onmessage = (e: MessageEvent<unknown>) => {
    const m = e.data as {
      phase?: unknown;
      train?: unknown;
      other?: unknown;
      code?: unknown;
      message?: unknown;
    };
    if (m?.phase === "loaded") onLoaded();
    else if (m?.phase === "done" && Array.isArray(m.train) && Array.isArray(m.other)) {
      settle({ phase: "done", train: m.train as Row[], other: m.other as Row[] });
    } else if (m?.phase === "failed") {
      settle({ phase: "failed", code: m.code === 1 ? 1 : 3, message: String(m.message).slice(0, 2000) });
    }
  };
  w.onerror = (e: ErrorEvent) => {
    e.preventDefault();
    settle({ phase: "failed", code: 3, message: String(e.message).slice(0, 2000) });
  };
  w.postMessage(init);
  live.add(w);
  return {
    run: (train, other) => {
      w.postMessage({ kind: "rows", train, other } satisfies StepsJob);
      return reply.finally(() => {
        w.terminate();
        live.delete(w);
      });
    },
  };
}

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
    // A worker started ahead for a fit that never came (the job failed first) ends with the job.
    for (const w of live) w.terminate();
    for (const f of opened) f.close();
  }
}

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
  if (!["execute", "recompute", "predict"].includes(mode) || !taskPath || !devPath || !scope) {
    fail(
      2,
      "usage: harness.ts execute|recompute|predict <task.json> <dev.csv> <scope> <node> [<features.csv>]",
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
  const onLoaded = () => {
    if (loadedOnce) return;
    loadedOnce = true;
    progress({ step: 0, phase: "loaded" });
  };
  // The artifact's steps run in fresh workers (one per fit); the encoders and the model are fit here.
  const init: StepsInit = { kind: "init", scope, steps: manifest.steps, target: task.target };
  // The first worker starts before the dev rows are read, so its start-up overlaps the reading.
  let ahead = manifest.steps.length ? stepsWorker(init, onLoaded, live) : null;
  const { table, target, splits } = devData(taskPath, devPath, task);
  if (target.task !== "regression" && target.classes.join("\u0000") !== task.classes.join("\u0000")) {
    fail(
      2,
      `Cannot use the dev rows: their classes differ from the task's (${task.classes.join(", ")})`,
      null,
      nonce,
    );
  }
  const jobs = mode === "predict" ? 1 : splits.folds.length;
  let started = 0;
  if (!ahead) onLoaded();
  const model = { ...manifest.model, seed: task.seed };
  /** Fits the artifact on `train` rows of the dev table and predicts `rows` of `other`. */
  /** Time spent handing rows over and making workers: not fitting, so not counted in fit_ms. */
  let setupMs = 0;
  const fitPredict = async (train: Rows, other: Table, rows: Rows): Promise<Prediction> => {
    started += 1;
    let transform: FeatureTransform | null = null;
    if (ahead) {
      const w = ahead;
      const c0 = performance.now();
      const replying = w.run(toRows(table, train), toRows(other, rows, [task.target]));
      // The next fit's worker is made while this one works: making a worker blocks this thread (~20 ms).
      ahead = started < jobs ? stepsWorker(init, onLoaded, live) : null;
      setupMs += performance.now() - c0;
      const r = await replying;
      if (r.phase === "failed") fail(r.code, r.message, results, nonce, node);
      transform = {
        fit: () => null,
        fitTransform: () => ({ state: null, rows: r.train }),
        transform: () => r.other,
      };
    }
    const spec: PipelineSpec = { target, transform, model };
    try {
      return predictPipeline(fitPipeline(table, train, spec), other, rows, spec);
    } catch (e) {
      if (e instanceof TransformError || e instanceof RangeError || e instanceof TypeError) {
        fail(3, e.message, results, nonce, node);
      }
      throw e;
    }
  };
  if (mode === "predict") {
    if (!featuresPath) fail(2, "Cannot predict: no features file given", null, nonce);
    const { [task.target]: _, ...featureKinds } = task.kinds;
    const features = readCsvFile(featuresPath, { types: featureKinds });
    const f0 = performance.now();
    const pred = await fitPredict(allRows(table), features, allRows(features));
    const fitMs = performance.now() - f0 - setupMs;
    stdout(
      enc.encode(`${nonce} ${JSON.stringify({ k: pred.k, values: finite(pred.values), fit_ms: fitMs })}\n`),
    );
    return;
  }
  const foldPreds: number[][] = [];
  const foldScores: number[] = [];
  let k = 1, fitMs = 0;
  for (let i = 0; i < splits.folds.length; i++) {
    const fold = splits.folds[i]!;
    const f0 = performance.now(), s0 = setupMs;
    const pred = await fitPredict(fold.train, table, fold.valid);
    fitMs += performance.now() - f0 - (setupMs - s0);
    k = pred.k;
    foldPreds.push(finite(pred.values));
    if (metrics) {
      const y = Float64Array.from(fold.valid, (row) => target.y[row]!);
      const s = score(task.metric, y, pred);
      foldScores.push(s);
      writeAll(metrics, JSON.stringify({ step: i + 1, [task.metric]: s }) + "\n");
    } else progress({ step: i + 1 });
  }
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
}

/** `serve`: jobs from stdin, one JSON line each, until stdin ends. */
async function serve(): Promise<void> {
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
      try {
        code = await runJob(j.args, j.args[0] === "execute" ? null : j.nonce, j.progress);
      } catch (e) {
        // The harness' own failure (an unreadable file, a bug): this job fails, the slot goes on.
        stderr(enc.encode(`${e instanceof Error ? e.stack ?? e.message : String(e)}\n`));
      }
      stdout(enc.encode(`${j.nonce} end ${JSON.stringify({ exit: code })}\n`));
    }
  }
}

if (Deno.args[0] === "serve") {
  await serve();
  Deno.exit(0);
}
const oneNonce = Deno.args[0] === "execute" ? null : readNonce();
// A standby whose line never came (its executor failed): nothing to do.
if (oneNonce === "") Deno.exit(0);
const progressEnv = Deno.args[0] === "execute" ? null : Deno.env.get("ARROW_PROGRESS") ?? null;
Deno.exit(await runJob(Deno.args, oneNonce, progressEnv));
