/**
 * The child program every tree-mode measurement runs in: `harness.ts <mode> <task.json> <dev.csv> <scope>
 * <node> [<features.csv>]`, under the node's lane (read its dev data, its scope and the toolkit; write its
 * scope, executors only). It never runs the artifact's code itself: every fold, and every prediction, is
 * one fresh worker (fold_worker.ts) with its own, narrower permissions, ended before the next starts — so
 * the hypothesis' code runs with nothing to read and nowhere to write, whatever it tries shows up in the
 * permission audit, and nothing it remembers from one fold reaches the next.
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
  type ColumnKind,
  makeTarget,
  type MetricName,
  readCsvFile,
  score,
  splitsFromJson,
  type Task,
} from "../../src/tabular/mod.ts";
import { parseArtifact } from "./compose.ts";
import type { FoldJob, FoldReply } from "./fold_worker.ts";

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

const TOOLKIT = new URL("../../src/tabular/", import.meta.url).pathname;
const HERE = new URL("./", import.meta.url).pathname;
const WORKER = new URL("./fold_worker.ts", import.meta.url).href;

/**
 * Runs `job` in a fresh worker and ends the worker: nothing the artifact's code kept survives into the next
 * job. `onLoaded` is called once the artifact's modules are loaded (a sign of life for the hang clock).
 */
function inFreshWorker(job: FoldJob, onLoaded: () => void): Promise<FoldReply> {
  const read = [job.task, job.dev, job.scope, TOOLKIT, HERE, ...(job.features ? [job.features] : [])];
  const w = new Worker(WORKER, {
    type: "module",
    deno: {
      permissions: {
        read,
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
  return new Promise<FoldReply>((resolve) => {
    let loaded = false;
    w.onmessage = (e: MessageEvent<unknown>) => {
      const m = e.data as {
        phase?: string;
        k?: unknown;
        values?: unknown;
        fitMs?: unknown;
        code?: unknown;
        message?: unknown;
      } | null;
      if (m?.phase === "loaded" && !loaded) {
        loaded = true;
        onLoaded();
      } else if (m?.phase === "done" && m.values instanceof Float64Array && typeof m.k === "number") {
        resolve({ phase: "done", k: m.k, values: m.values, fitMs: Number(m.fitMs) || 0 });
      } else if (m?.phase === "failed") {
        resolve({ phase: "failed", code: m.code === 3 ? 3 : 1, message: String(m.message).slice(0, 2000) });
      }
      // Anything else the artifact's code posted is ignored: only the worker's own replies count.
    };
    w.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      resolve({ phase: "failed", code: 1, message: String(e.message).slice(0, 2000) });
    };
    w.postMessage(job);
  }).finally(() => w.terminate());
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
  parseArtifact(JSON.parse(Deno.readTextFileSync(`${scope}/artifact.json`)));
  const metrics = mode === "execute"
    ? Deno.openSync(`${scope}/metrics.jsonl`, { append: true, create: true })
    : null;
  const results = mode === "execute"
    ? Deno.openSync(`${scope}/results.json`, { write: true, create: true, truncate: true })
    : null;
  // Signs of life for the hang clock: metrics lines (executor) or lines in the progress file Arrow named.
  const progressPath = mode === "execute" ? undefined : Deno.env.get("ARROW_PROGRESS");
  const progressFile = progressPath ? Deno.openSync(progressPath, { append: true, create: true }) : null;
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
  const base = { task: taskPath, dev: devPath, scope };
  const check = (r: FoldReply): { k: number; values: Float64Array; fitMs: number } => {
    if (r.phase === "failed") {
      if (r.code === 3) fail(3, r.message, results, nonce);
      fail(1, r.message, results, nonce);
    }
    return r;
  };
  if (mode === "predict") {
    if (!featuresPath) fail(2, "Cannot predict: no features file given", null, nonce);
    const r = check(await inFreshWorker({ ...base, fold: null, features: featuresPath }, onLoaded));
    stdout(
      enc.encode(`${nonce} ${JSON.stringify({ k: r.k, values: finite(r.values), fit_ms: r.fitMs })}\n`),
    );
    return;
  }
  const foldPreds: number[][] = [];
  const foldScores: number[] = [];
  let k = 1, fitMs = 0;
  for (let i = 0; i < splits.folds.length; i++) {
    const fold = splits.folds[i]!;
    const r = check(await inFreshWorker({ ...base, fold: i, features: null }, onLoaded));
    fitMs += r.fitMs;
    k = r.k;
    foldPreds.push(finite(r.values));
    if (metrics) {
      const y = Float64Array.from(fold.valid, (row) => target.y[row]!);
      const s = score(task.metric, y, { task: target.task, k: r.k, values: r.values });
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

await main();
Deno.exit(0);
