/**
 * `splits.json` at the run's root: the split the run used, as 0-based data-row numbers of the user's CSV,
 * so an outside benchmark can fit on exactly dev + held-out and score on exactly the final test. It lives
 * outside `data/` and outside every scope, so no executor's lane can read it (sandbox.ts).
 *
 * @module
 */
import { canonical } from "../model/json.ts";
import { splitsToJson } from "../tabular/mod.ts";
import type { TreeData } from "./data.ts";

export const SPLITS_FORMAT = "arrow-tree-splits/1";

export const ROWS_NOTE = "0-based data-row numbers of the CSV: row 0 is the first record after the header, " +
  "in file order (blank lines are not records); rows whose target is missing are counted too, and are in " +
  "no set (listed under missing_target)";

export interface SplitsFile {
  format: typeof SPLITS_FORMAT;
  rows_note: string;
  file: string;
  data_hash: string;
  target: string;
  task: string;
  classes: string[];
  metric: string;
  seed: number;
  rows: number;
  missing_target: number[];
  dev: number[];
  heldout: number[];
  test: number[];
}

export const splitsPath = (runDir: string) => `${runDir}/splits.json`;

/** What splits.json holds for `data` (the same bytes for the same data and seed). */
export function splitsRecord(data: TreeData, seed: number): SplitsFile {
  const { target, metric } = data.task;
  // Row numbers only (no label is read here): the parts as the canonical splits JSON holds them.
  const parts = splitsToJson(data.task.splits);
  const usable = new Set(target.usable);
  const missing: number[] = [];
  for (let i = 0; i < data.table.nRows; i++) if (!usable.has(i)) missing.push(i);
  const sorted = (r: ArrayLike<number>) => Array.from(r).sort((a, b) => a - b);
  return {
    format: SPLITS_FORMAT,
    rows_note: ROWS_NOTE,
    file: data.file,
    data_hash: data.info.data_hash,
    target: target.name,
    task: target.task,
    classes: target.classes,
    metric,
    seed,
    rows: data.table.nRows,
    missing_target: missing,
    dev: sorted(parts.dev),
    heldout: sorted(parts.heldout),
    test: sorted(parts.test),
  };
}

export function writeSplitsFile(runDir: string, data: TreeData, seed: number): string {
  const path = splitsPath(runDir);
  Deno.writeTextFileSync(path, canonical(splitsRecord(data, seed)) + "\n");
  return path;
}
