/**
 * The tree benchmark's reference models on Arrow's own rows: the split a tree run uses (its `splits.json`
 * when the run wrote one, else recomputed with `loadData`, the function `arrow tree` calls, same seed), and
 * `refs.py` (scikit-learn HistGradientBoosting, XGBoost, logistic/ridge) run with /usr/bin/python3 on them.
 *
 * @module
 */
import { columnKinds, type MetricName, MISSING_MARKERS } from "../../src/tabular/mod.ts";
import { loadData } from "../../src/tree/data.ts";

const REFS_PY = new URL("./refs.py", import.meta.url).pathname;
export const PYTHON = "/usr/bin/python3";
export const REFERENCES = ["hgb", "xgboost", "linear"] as const;
export type Reference = typeof REFERENCES[number];

export interface RowSplit {
  dev: number[];
  heldout: number[];
  test: number[];
}

export interface RefScores {
  scores: Record<Reference, number>;
  fitS: Record<Reference, number>;
  versions: Record<string, string>;
}

/** The split `arrow tree` makes for `file`/`target` with `seed` (0-based data rows of the CSV). */
export function arrowSplit(file: string, target: string, seed: number, metric: MetricName): RowSplit {
  const { splits } = loadData(file, target, { seed, metric }).task;
  return { dev: Array.from(splits.dev), heldout: Array.from(splits.heldout), test: Array.from(splits.test) };
}

/**
 * The run directory's `splits.json`, when the run wrote one (null otherwise), checked against `expected`
 * (the recomputed split): a difference means the benchmark would score references on other rows.
 */
export function runSplit(runDir: string, expected: RowSplit): RowSplit | null {
  let text: string;
  try {
    text = Deno.readTextFileSync(`${runDir}/splits.json`);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
  const j = JSON.parse(text) as Partial<RowSplit>;
  const got: RowSplit = { dev: j.dev ?? [], heldout: j.heldout ?? [], test: j.test ?? [] };
  for (const part of ["dev", "heldout", "test"] as const) {
    const a = [...got[part]].sort((x, y) => x - y), b = [...expected[part]].sort((x, y) => x - y);
    if (a.length !== b.length || a.some((v, i) => v !== b[i])) {
      throw new Error(
        `${runDir}/splits.json: its ${part} rows (${a.length}) differ from the split recomputed with ` +
          `loadData (${b.length})`,
      );
    }
  }
  return got;
}

/** Fits the references on `fit` rows and scores them on `test` rows with `metric`. */
export async function references(
  file: string,
  targetName: string,
  metric: MetricName,
  seed: number,
  rows: { fit: number[]; test: number[] },
  tmp: string,
): Promise<RefScores> {
  const { table, task } = loadData(file, targetName, { seed, metric });
  const y = task.target.y;
  const spec = {
    csv: file,
    target: targetName,
    task: task.target.task,
    metric,
    k: task.target.task === "regression" ? 1 : task.target.classes.length,
    kinds: columnKinds(table),
    missing: MISSING_MARKERS,
    fit: rows.fit,
    test: rows.test,
    y_fit: rows.fit.map((r) => y[r]!),
    y_test: rows.test.map((r) => y[r]!),
    seed,
  };
  const specFile = await Deno.makeTempFile({ dir: tmp, prefix: "refs-", suffix: ".json" });
  await Deno.writeTextFile(specFile, JSON.stringify(spec));
  // One thread each: the benchmark shares two cores, and the fit times are then comparable.
  const env = { OMP_NUM_THREADS: "1", OPENBLAS_NUM_THREADS: "1" };
  const out = await new Deno.Command(PYTHON, {
    args: [REFS_PY, specFile],
    env,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  await Deno.remove(specFile);
  if (!out.success) {
    const err = new TextDecoder().decode(out.stderr).trim().split("\n").slice(-3).join(" / ");
    throw new Error(`Cannot fit the references on ${file} (seed ${seed}): ${err}`);
  }
  const j = JSON.parse(new TextDecoder().decode(out.stdout)) as Record<string, unknown>;
  const scores = {} as Record<Reference, number>, fitS = {} as Record<Reference, number>;
  for (const r of REFERENCES) {
    const v = j[r] as { score: number; fit_s: number };
    scores[r] = v.score;
    fitS[r] = v.fit_s;
  }
  return { scores, fitS, versions: j.versions as Record<string, string> };
}
