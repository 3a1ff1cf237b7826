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
 * - `serve` (a long-lived slot, src/tree/server.ts): the same jobs, one after another, each read from stdin
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
  type ColumnKind,
  type FeatureTransform,
  fitPipeline,
  fitPipelineOn,
  fromRows,
  inferSchema,
  makeTarget,
  type MetricName,
  type PipelineSpec,
  type Prediction,
  predictPipeline,
  predictTable,
  readCsvFile,
  readTable,
  type Row,
  score,
  type Splits,
  splitsFromJson,
  type Table,
  type Task,
  toRows,
  TransformError,
} from "../../src/tabular/mod.ts";
import { BundleError, bundleSteps } from "./bundle.ts";
import { createHash } from "node:crypto";
import { type ArtifactManifest, chain, parseArtifact, StepError } from "./compose.ts";
import { loadSteps } from "./steps.ts";
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

/**
 * The features files a slot has read (the merge gate writes the same held-out features for every query, in
 * a file of that query's own), by content hash: a file read again is parsed once.
 */
const featureCache = new Map<string, Table>();

function cachedTable(path: string, kinds: Record<string, ColumnKind>): Table {
  const text = Deno.readTextFileSync(path);
  const key = `${createHash("sha256").update(text).digest("hex")}\u0000${JSON.stringify(kinds)}`;
  let t = featureCache.get(key);
  if (!t) {
    t = readTable(text, path, { types: kinds });
    if (featureCache.size >= 4) featureCache.delete(featureCache.keys().next().value!);
    featureCache.set(key, t);
  }
  return t;
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

/** A worker's lane: the toolkit and this directory, nothing of any scope (the same for every job). */
const LANE: Deno.PermissionOptionsObject = {
  read: [TOOLKIT, HERE],
  write: false,
  net: false,
  env: false,
  run: false,
  ffi: false,
  sys: false,
  import: false,
};

/**
 * Workers started ahead of any job (a slot starts them while it waits), each to serve one fit and end.
 * Making a worker blocks this thread for ~20 ms, so a slot makes them between jobs, not during one.
 */
const spares: Worker[] = [];
/**
 * How many spares a slot keeps: the most workers one job needed so far (none until a job's steps needed
 * workers at all: an artifact of library steps alone never does).
 */
let sparesWanted = 0;
/** Whether a job is running (spares are then made only when a fit needs one). */
let busy = false;

/** A new worker; until a fit takes it, an error of its own (it could not start) only retires it. */
function makeWorker(): Worker {
  const w = new Worker(WORKER, { type: "module", deno: { permissions: LANE } });
  w.onerror = (e: ErrorEvent) => {
    e.preventDefault();
    const at = spares.indexOf(w);
    if (at >= 0) spares.splice(at, 1);
    w.terminate();
  };
  return w;
}

/** Makes spares until there are enough, one at a time, giving way to a job as soon as one arrives. */
async function refill(): Promise<void> {
  while (!busy && spares.length < sparesWanted) {
    spares.push(makeWorker());
    await new Promise((r) => setTimeout(r, 0));
  }
}

interface StepsRun {
  /** Hands the worker its fit's rows (JSON text of the rows). */
  send(train: string, other: string): void;
  reply: Promise<StepsReply>;
}

/**
 * A worker (a spare, or a new one) for one fit of the artifact's steps, told its modules now and its rows
 * when `send` is called; it is ended once it answered. `onLoaded` is called when its code is loaded (a sign
 * of life for the hang clock). Only the worker's own replies count: anything else posted is ignored, and
 * the tables it hands back are checked cell by cell before anything uses them.
 */
function stepsWorker(init: StepsInit, onLoaded: () => void, live: Set<Worker>): StepsRun {
  const w = spares.shift() ?? makeWorker();
  let settle: (r: StepsReply) => void = () => {};
  const reply = new Promise<StepsReply>((r) => (settle = r)).finally(() => {
    w.terminate();
    live.delete(w);
  });
  w.onmessage = (e: MessageEvent<unknown>) => {
    const m = e.data as {
      phase?: unknown;
      train?: unknown;
      other?: unknown;
      ran?: unknown;
      code?: unknown;
      message?: unknown;
    };
    if (m?.phase === "loaded") onLoaded();
    else if (m?.phase === "done" && typeof m.train === "string" && typeof m.other === "string") {
      const ran = Array.isArray(m.ran) && m.ran.length === 2 && m.ran.every(Number.isFinite)
        ? [m.ran[0], m.ran[1]] as [number, number]
        : [0, 0] as [number, number];
      settle({ phase: "done", train: m.train, other: m.other, ran });
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
    send: (train, other) => w.postMessage({ kind: "rows", train, other } satisfies StepsJob),
    reply,
  };
}

/**
 * Whether every step of the artifact is a module Arrow's library wrote: its file's SHA-256 is one Arrow
 * recorded as the library's when it wrote the artifact (artifact.json `library`, checked against the
 * library's own templates there). Such steps are Arrow's code, like the encoders, and run here; any other
 * step — an LLM's, a fixture's, a file changed since — runs in a fresh worker per fit.
 */
function fromLibrary(scope: string, manifest: ArtifactManifest): boolean {
  const known = new Set(manifest.library);
  return known.size > 0 && manifest.steps.every((p) => {
    try {
      return known.has(createHash("sha256").update(Deno.readFileSync(`${scope}/${p}`)).digest("hex"));
    } catch {
      return false;
    }
  });
}

/** The library's steps chained into one transform run here, failing as the pipeline's transforms fail. */
function libraryTransform(steps: FeatureTransform[], target: string): FeatureTransform {
  const t = chain(steps, target)!;
  const lift = <T>(f: () => T): T => {
    try {
      return f();
    } catch (e) {
      if (e instanceof StepError) throw new TransformError(e.phase, e.reason);
      throw e;
    }
  };
  return {
    fit: (rows) => lift(() => t.fit(rows)),
    transform: (state, rows) => lift(() => t.transform(state as unknown[], rows)),
    fitTransform: (rows) => lift(() => t.fitTransform!(rows)),
  };
}

/** A worker's JSON rows, `n` of them, each without the target column; or the artifact's failure. */
function rowsOf(text: string, n: number, phase: "fit" | "transform"): Row[] {
  let rows: unknown;
  try {
    rows = JSON.parse(text);
  } catch {
    throw new TransformError(phase, "it returned rows that cannot be read");
  }
  if (!Array.isArray(rows)) throw new TransformError(phase, "it returned no array of rows");
  if (rows.length !== n) throw new TransformError(phase, `it returned ${rows.length} rows for ${n}`);
  return rows as Row[];
}

function guard<T>(phase: "fit" | "transform", f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw new TransformError(phase, e instanceof Error ? e.message : String(e));
  }
}

/** The length of the union of `spans` (start, end), in ms. */
function covered(spans: [number, number][]): number {
  const sorted = spans.filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0]);
  let total = 0, end = -Infinity;
  for (const [a, b] of sorted) {
    if (b <= end) continue;
    total += b - Math.max(a, end);
    end = b;
  }
  return total;
}

const clock = () => performance.timeOrigin + performance.now();

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
  // The artifact's steps run in fresh workers (one per fit) unless they are all the library's own code
  // (checked by content hash); the encoders and the model are fit here.
  let modules: { path: string; url: string }[] = [];
  try {
    const urls = bundleSteps(scope, manifest.steps);
    modules = manifest.steps.map((path, i) => ({ path, url: urls[i]! }));
  } catch (e) {
    if (e instanceof BundleError) fail(3, new StepError("fit", e.message).message, results, nonce, node);
    throw e;
  }
  const init: StepsInit = { kind: "init", modules, target: task.target };
  let inRealm: FeatureTransform | null = null;
  if (modules.length && fromLibrary(scope, manifest)) {
    try {
      inRealm = libraryTransform(await loadSteps(modules), task.target);
    } catch (e) {
      if (e instanceof StepError) fail(3, e.message, results, nonce, node);
      throw e;
    }
    modules = [];
  }
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
  if (mode === "predict") {
    if (!featuresPath) fail(2, "Cannot predict: no features file given", null, nonce);
    const { [task.target]: _, ...featureKinds } = task.kinds;
    features = cachedTable(featuresPath!, featureKinds);
  }
  /** Each fit: the training rows of the dev table, and which rows of which table to predict. */
  const fits = features
    ? [{ train: allRows(table), other: features, rows: allRows(features) }]
    : splits.folds.map((f) => ({ train: f.train, other: table, rows: f.valid }));
  if (modules.length) sparesWanted = Math.max(sparesWanted, fits.length);
  const model = { ...manifest.model, seed: task.seed };
  /** When fitting ran (the model here, the artifact's steps in their workers): the job's fit_ms. */
  const spans: [number, number][] = [];
  const runs: StepsRun[] = [];
  /** Starts fit `i`'s worker on its rows (a fit ahead of the one being fit, so it works meanwhile). */
  const start = (i: number) => {
    if (!modules.length || i >= fits.length || runs[i]) return;
    const f = fits[i]!;
    const run = stepsWorker(init, onLoaded, live);
    run.send(JSON.stringify(toRows(table, f.train)), JSON.stringify(toRows(f.other, f.rows, [task.target])));
    runs[i] = run;
  };
  if (!modules.length) onLoaded();
  /** Fit `i`: the artifact's steps (in its worker), then the encoders and the model on their output. */
  const fitPredict = async (i: number): Promise<Prediction> => {
    const f = fits[i]!;
    start(i);
    start(i + 1);
    try {
      if (!modules.length) {
        const spec: PipelineSpec = { target, transform: inRealm, model };
        const p0 = clock();
        const pred = predictPipeline(fitPipeline(table, f.train, spec), f.other, f.rows, spec);
        spans.push([p0, clock()]);
        return pred;
      }
      const r = await runs[i]!.reply;
      if (r.phase === "failed") fail(r.code, r.message, results, nonce, node);
      spans.push(r.ran);
      // The steps' output, read into the schema its training rows fix (as the pipeline reads any transform's).
      const trained = rowsOf(r.train, f.train.length, "fit");
      const schema = guard("fit", () => inferSchema(trained, "the transform's output"));
      const evaluated = fromRows(rowsOf(r.other, f.rows.length, "transform"), schema);
      const spec: PipelineSpec = { target, transform: null, model };
      const p0 = clock();
      const pred = predictTable(fitPipelineOn(fromRows(trained, schema), f.train, spec), evaluated);
      spans.push([p0, clock()]);
      return pred;
    } catch (e) {
      if (e instanceof TransformError || e instanceof RangeError || e instanceof TypeError) {
        fail(3, e.message, results, nonce, node);
      }
      throw e;
    }
  };
  if (mode === "predict") {
    const pred = await fitPredict(0);
    const fitMs = covered(spans);
    stdout(
      enc.encode(`${nonce} ${JSON.stringify({ k: pred.k, values: finite(pred.values), fit_ms: fitMs })}\n`),
    );
    return;
  }
  const foldPreds: number[][] = [];
  const foldScores: number[] = [];
  let k = 1;
  for (let i = 0; i < fits.length; i++) {
    const fold = splits.folds[i]!;
    const pred = await fitPredict(i);
    k = pred.k;
    foldPreds.push(finite(pred.values));
    if (metrics) {
      const y = Float64Array.from(fold.valid, (row) => target.y[row]!);
      const s = score(task.metric, y, pred);
      foldScores.push(s);
      writeAll(metrics, JSON.stringify({ step: i + 1, [task.metric]: s }) + "\n");
    } else progress({ step: i + 1 });
  }
  const fitMs = covered(spans);
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
  refill();
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
      busy = true;
      try {
        code = await runJob(j.args, j.args[0] === "execute" ? null : j.nonce, j.progress);
      } catch (e) {
        // The harness' own failure (an unreadable file, a bug): this job fails, the slot goes on.
        stderr(enc.encode(`${e instanceof Error ? e.stack ?? e.message : String(e)}\n`));
      }
      stdout(enc.encode(`${j.nonce} end ${JSON.stringify({ exit: code })}\n`));
      busy = false;
      refill();
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
