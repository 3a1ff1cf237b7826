/**
 * What a harness job reads: the task file Arrow wrote for the run, the dev rows with their target and folds,
 * and a features file to predict. A slot runs many jobs, so the dev rows are read once while their files
 * stay the same, and a features file read again (the merge gate writes the same held-out features for every
 * query) is parsed once.
 *
 * @module
 */
import {
  type ColumnKind,
  makeTarget,
  type MetricName,
  readCsvFile,
  readTable,
  type Splits,
  splitsFromJson,
  type Table,
  type Task,
} from "../../../tabular/mod.ts";
import { createHash } from "node:crypto";

/** The run's task.json: the target, the task, the metric, the column kinds, the folds, the tuple. */
export interface TaskFile {
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

/** The dev rows as last read, and which files (path, size, mtime) they were read from. */
let devCache: { key: string; table: Table; target: ReturnType<typeof makeTarget>; splits: Splits } | null =
  null;

/**
 * The dev table, its target and folds: read once per slot while the files stay the same (Arrow writes them
 * once per run; a job that finds them changed reads them again).
 */
export function devData(taskPath: string, devPath: string, task: TaskFile) {
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

/** A features file as a table of `kinds`, parsed once per content. */
export function cachedTable(path: string, kinds: Record<string, ColumnKind>): Table {
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

/** Validation rows a screen aims for: the first folds until they hold this many (at most SCREEN_MAX_FOLDS). */
export const SCREEN_ROWS = 150;
export const SCREEN_MAX_FOLDS = 2;

/**
 * How many of the dev folds a screen fits (tree/execute/screen.ts): the first ones, enough for SCREEN_ROWS
 * validation rows and at most SCREEN_MAX_FOLDS — a fifth or two of a full cross-validation's fits, on rows
 * enough to tell a large gain from none. The coordinator and the harness both read it, so they agree.
 */
export function screenFolds(foldSizes: readonly number[]): number {
  let rows = 0, k = 0;
  while (k < Math.min(SCREEN_MAX_FOLDS, foldSizes.length) && rows < SCREEN_ROWS) rows += foldSizes[k++]!;
  return Math.max(1, k);
}
