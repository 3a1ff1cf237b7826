/**
 * One fit of an artifact, in a Web Worker of its own: the harness (harness.ts) starts a fresh worker for
 * every fold and for every prediction, and ends it before starting the next, so whatever the artifact's code
 * keeps between calls — a module-level variable, a property on `globalThis` or on a prototype, a cache — dies
 * with the fold. Without this, a module could remember the labels of the rows it was fit on in one fold and
 * hand them back as a feature when the same rows are validated in the next, and cross-validation would
 * measure memory, not a feature.
 *
 * The worker is given its own permissions (read: the task, the rows, the scope, the toolkit; nothing else),
 * reads its inputs, gives up the data files, then imports the artifact's modules (their top-level code sees
 * no row of data), then gives up every read before calling `fit` and `transform`. Channels between
 * isolates (BroadcastChannel, nested workers, message ports, shared memory, the Cache API) and the runtime's
 * internals are removed from its global scope before any artifact code loads.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import {
  allRows,
  type ColumnKind,
  fitPipeline,
  makeTarget,
  type PipelineSpec,
  predictPipeline,
  readCsvFile,
  splitsFromJson,
  type Task,
  TransformError,
} from "../../src/tabular/mod.ts";
import { chain, loadSteps, parseArtifact } from "./compose.ts";

/** What the harness asks: cross-validation fold `fold` of the dev rows, or a prediction for `features`. */
export interface FoldJob {
  task: string;
  dev: string;
  scope: string;
  fold: number | null;
  features: string | null;
}

/** What the worker answers (besides `{ phase: "loaded" }` once the artifact's code is loaded). */
export type FoldReply =
  | { phase: "done"; k: number; values: Float64Array; fitMs: number }
  | { phase: "failed"; code: 1 | 3; message: string };

interface TaskFile {
  target: string;
  task: Task;
  kinds: Record<string, ColumnKind>;
  splits: unknown;
  seed: number;
}

const CHANNELS = [
  "BroadcastChannel",
  "Worker",
  "MessageChannel",
  "MessagePort",
  "SharedArrayBuffer",
  "Atomics",
  "caches",
  "CacheStorage",
  "localStorage",
  "sessionStorage",
  "indexedDB",
];
for (const name of CHANNELS) delete (globalThis as Record<string, unknown>)[name];
try {
  delete (Deno as unknown as Record<symbol, unknown>)[(Deno as unknown as { internal: symbol }).internal];
} catch {
  // not configurable in this Deno: the channels above are gone all the same
}
// The harness' arguments name its mode: code that could read them could behave one way for the executor
// and another for Arrow's recomputation.
try {
  Object.defineProperty(Deno, "args", { value: Object.freeze([]), configurable: false });
} catch {
  // already fixed: then it was never the harness' own
}

const post = (m: FoldReply | { phase: "loaded" }) => self.postMessage(m);

async function run(job: FoldJob): Promise<FoldReply> {
  const task = JSON.parse(Deno.readTextFileSync(job.task)) as TaskFile;
  const table = readCsvFile(job.dev, { types: task.kinds });
  const target = makeTarget(table, task.target, task.task);
  const splits = splitsFromJson(task.splits, table.nRows);
  const manifest = parseArtifact(JSON.parse(Deno.readTextFileSync(`${job.scope}/artifact.json`)));
  const { [task.target]: _, ...featureKinds } = task.kinds;
  const features = job.features ? readCsvFile(job.features, { types: featureKinds }) : null;
  // The rows are read: the artifact's modules load without them, then run with nothing readable at all.
  for (const path of [job.task, job.dev, job.features]) {
    if (path) Deno.permissions.revokeSync({ name: "read", path });
  }
  const steps = await loadSteps(job.scope, manifest);
  const spec: PipelineSpec = {
    target,
    transform: chain(steps, task.target),
    model: { ...manifest.model, seed: task.seed },
  };
  Deno.permissions.revokeSync({ name: "read" });
  post({ phase: "loaded" });
  const f0 = performance.now();
  if (job.fold === null) {
    if (!features) return { phase: "failed", code: 1, message: "Cannot predict: no features file given" };
    const fitted = fitPipeline(table, allRows(table), spec);
    const pred = predictPipeline(fitted, features, allRows(features), spec);
    return { phase: "done", k: pred.k, values: pred.values, fitMs: performance.now() - f0 };
  }
  const fold = splits.folds[job.fold];
  if (!fold) return { phase: "failed", code: 1, message: `Cannot run fold ${job.fold}: no such fold` };
  const fitted = fitPipeline(table, fold.train, spec);
  const pred = predictPipeline(fitted, table, fold.valid, spec);
  return { phase: "done", k: pred.k, values: pred.values, fitMs: performance.now() - f0 };
}

self.onmessage = async (e: MessageEvent<FoldJob>) => {
  let reply: FoldReply;
  try {
    reply = await run(e.data);
  } catch (err) {
    const known = err instanceof TransformError || err instanceof RangeError || err instanceof TypeError;
    const message = err instanceof Error ? err.message : String(err);
    reply = { phase: "failed", code: known ? 3 : 1, message: message.slice(0, 2000) };
  }
  post(reply);
};
