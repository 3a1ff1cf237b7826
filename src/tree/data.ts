/**
 * The data side of a tree run, made once by the coordinator: the user's CSV read and typed, the task (target,
 * metric, seeded splits), and the only data files executors get — the dev rows (`data/dev.csv`) and the
 * task with the folds re-indexed into them (`data/task.json`). Held-out and test rows are never written
 * here; the merge gate (gate.ts) keeps their labels in memory. The dataset description ideators read is
 * computed from dev rows only, so no hypothesis is shaped by held-out data.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { canonical } from "../model/json.ts";
import {
  cellValue,
  type Column,
  columnKinds,
  looksLikeDates,
  makeTask,
  type MetricName,
  readCsvFile,
  restrictSplits,
  type Rows,
  splitsToJson,
  type Table,
  type TabularTask,
  writeCsv,
} from "../tabular/mod.ts";
import type { ColumnInfo, DatasetInfo } from "./types.ts";
import type { SandboxContext } from "./execute/sandbox.ts";

export const PROTOCOL_VERSION = "arrow-tree/1";

export interface TreeData {
  file: string;
  table: Table;
  task: TabularTask;
  info: DatasetInfo;
}

const sha256 = (b: Uint8Array | string) => createHash("sha256").update(b).digest("hex");

function describeColumn(col: Column, rows: Rows): ColumnInfo {
  let missing = 0;
  const counts = new Map<string, number>();
  let min: number | null = null;
  let spaced = 0;
  for (const r of rows) {
    const v = cellValue(col, r);
    if (v === null) {
      missing++;
      continue;
    }
    const key = String(v);
    counts.set(key, (counts.get(key) ?? 0) + 1);
    if (typeof v === "number" && (min === null || v < min)) min = v;
    if (typeof v === "string" && /[\s,]/.test(v.trim())) spaced++;
  }
  const present = rows.length - missing;
  const rareBelow = Math.max(5, Math.ceil(rows.length * 0.01));
  const words = col.kind === "text" || col.kind === "categorical";
  // A date with a time has a space in it: it is a date, not a name.
  const date = words && present > 0 && looksLikeDates([...counts.keys()]);
  return {
    name: col.name,
    kind: col.kind,
    missing,
    distinct: counts.size,
    min: col.kind === "numeric" ? min : null,
    nameLike: words && !date && counts.size > 10 && spaced * 2 >= present,
    rare: col.kind === "categorical" ? [...counts.values()].filter((n) => n < rareBelow).length : 0,
    ...(date ? { date: true as const } : {}),
  };
}

/** Fewer rows than this and no column is called an identifier (a small table's distinct values mean little). */
const ID_MIN_ROWS = 20;

/**
 * A column that identifies rows rather than describing them: no missing cell and a distinct value in every
 * row — a consecutive integer counter, or categorical/text values none of which holds a space (a name
 * with words in it is text a step may mine, not an identifier) and which are not dates (a daily series'
 * date column is unique per row and is what the date family reads).
 */
export function idLike(col: Column, nRows: number): boolean {
  if (nRows < ID_MIN_ROWS) return false;
  const seen = new Set<string | number>();
  let min = Infinity, max = -Infinity;
  for (let i = 0; i < nRows; i++) {
    const v = cellValue(col, i);
    if (v === null || typeof v === "boolean") return false;
    if (typeof v === "number") {
      if (!Number.isInteger(v)) return false;
      min = Math.min(min, v);
      max = Math.max(max, v);
    } else if (/\s/.test(v)) return false;
    seen.add(v);
  }
  if (seen.size !== nRows) return false;
  if (col.kind === "numeric") return max - min + 1 === nRows;
  // A date on every row (a daily series) is unique per row too, but it is a calendar, not an identifier.
  return (col.kind === "categorical" || col.kind === "text") && !looksLikeDates([...seen] as string[]);
}

function allMissing(col: Column, nRows: number): boolean {
  for (let i = 0; i < nRows; i++) if (cellValue(col, i) !== null) return false;
  return true;
}

/** Reads the user's CSV and fixes the task; CsvError (file:line) and RangeError for what cannot be used. */
export function loadData(
  file: string,
  targetName: string,
  opts: { seed: number; metric?: MetricName; folds?: number; delimiter?: string },
): TreeData {
  const bytes = Deno.readFileSync(file);
  const read = readCsvFile(file, opts.delimiter ? { delimiter: opts.delimiter } : {});
  const task = makeTask(read, targetName, { seed: opts.seed, metric: opts.metric, folds: opts.folds ?? 5 });
  // An empty column carries nothing, and an identifier column is no feature (target-encoding it memorises
  // rows): both are left out before anything runs, and the report says so.
  const dropped = read.columns.filter((c) => c.name !== targetName).flatMap((c) =>
    allMissing(c, read.nRows)
      ? [{ column: c.name, reason: "empty on every row: no value to learn from" }]
      : idLike(c, read.nRows)
      ? [{
        column: c.name,
        reason: c.kind === "numeric"
          ? "id-like: a consecutive integer counter, unique per row"
          : "id-like: a value unique per row, with no spaces (an identifier, not a category)",
      }]
      : []
  );
  if (read.columns.every((c) => c.name === targetName || dropped.some((d) => d.column === c.name))) {
    throw new RangeError(
      `${file}: no column is left to learn ${JSON.stringify(targetName)} from: ${
        dropped.map((d) => `${JSON.stringify(d.column)} is left out (${d.reason})`).join("; ")
      }`,
    );
  }
  const table: Table = dropped.length
    ? { nRows: read.nRows, columns: read.columns.filter((c) => !dropped.some((d) => d.column === c.name)) }
    : read;
  const { splits, target } = task;
  const info: DatasetInfo = {
    file,
    rows: table.nRows,
    dev: splits.dev.length,
    heldout: splits.heldout.length,
    test: splits.test.length,
    folds: splits.folds.length,
    target: target.name,
    task: target.task,
    classes: target.classes,
    columns: table.columns.map((c) => describeColumn(c, splits.dev)),
    data_hash: sha256(bytes),
    split_hash: sha256(canonical(splitsToJson(splits))),
    ...(dropped.length ? { dropped } : {}),
  };
  return { file, table, task, info };
}

/** Where an executor's inputs are. */
export interface DataFiles {
  dir: string;
  dev: string;
  task: string;
}

export function dataFiles(runDir: string): DataFiles {
  const dir = `${runDir}/data`;
  return { dir, dev: `${dir}/dev.csv`, task: `${dir}/task.json` };
}

/** What a run's sandboxed children are given of `runDir` (its data files) and hidden from (`userCsv`, `runsDir`). */
export function sandboxOf(
  runDir: string,
  runsDir: string | null,
  userCsv: string,
  bwrap: string | null,
): SandboxContext {
  const files = dataFiles(runDir);
  return { runDir, runsDir, dataDir: files.dir, taskFile: files.task, devFile: files.dev, userCsv, bwrap };
}

/** Most sample rows an ideator is shown, and most characters of each line. */
export const SAMPLE_ROWS = 5;
const SAMPLE_LINE = 400;

/**
 * The header and the first `rows` lines of the run's dev rows (`data/dev.csv`, the very file executors read:
 * no held-out or test row is in it), each line cut to SAMPLE_LINE characters; empty when the file is not
 * there yet. Read from its first 64 KiB only.
 */
export function devSample(runDir: string, rows = SAMPLE_ROWS): string[] {
  let text: string;
  try {
    const f = Deno.openSync(dataFiles(runDir).dev, { read: true });
    try {
      const buf = new Uint8Array(64 * 1024);
      const n = f.readSync(buf) ?? 0;
      text = new TextDecoder().decode(buf.subarray(0, n));
    } finally {
      f.close();
    }
  } catch {
    return [];
  }
  const lines = text.split("\n").map((l) => l.replace(/\r$/, ""));
  // The file ends with a newline, and the 64 KiB window may cut its last line: only complete lines are shown.
  const whole = lines.slice(0, -1);
  return whole.slice(0, rows + 1).map((l) => (l.length > SAMPLE_LINE ? `${l.slice(0, SAMPLE_LINE)}…` : l));
}

/** Writes the dev rows and the dev-only task for executors (the same bytes for the same data and seed). */
export function writeDataFiles(runDir: string, data: TreeData, seed: number): DataFiles {
  const files = dataFiles(runDir);
  const { table, task } = data;
  Deno.mkdirSync(files.dir, { recursive: true });
  Deno.writeTextFileSync(files.dev, writeCsv(table, task.splits.dev));
  const splits = splitsToJson(restrictSplits(task.splits, task.splits.dev));
  Deno.writeTextFileSync(files.task, taskText(data, splits, seed));
  return files;
}

/** The task file a child reads (`arrow-tree-task/1`): the target, metric, column kinds, the rows it may use
 * (`splits`) and the run's hashes — the executors' dev-only one and the refit's (every training row, no folds). */
export function taskText(data: TreeData, splits: unknown, seed: number): string {
  const { table, task } = data;
  return canonical({
    format: "arrow-tree-task/1",
    target: task.target.name,
    task: task.target.task,
    classes: task.target.classes,
    metric: task.metric,
    kinds: columnKinds(table),
    splits,
    seed,
    data_hash: data.info.data_hash,
    split_hash: data.info.split_hash,
    protocol_version: PROTOCOL_VERSION,
  }) + "\n";
}
