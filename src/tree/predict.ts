/**
 * Predictions from a run's saved model (`model/`, model_dir.ts) for a new CSV: the columns the model was fit
 * on read with the kinds it was fit with, the library's steps run with their saved state, then the saved
 * encoders and trees. It runs in this process because it only ever runs Arrow's own code: a model whose
 * every step is the library's (re-checked here against the library's templates through the run's state,
 * and by content hash against the files) — the encoders and the GBDT are the toolkit's. A model with any
 * other step is refused (its fitted state never left the sandboxed worker that fit it).
 *
 * @module
 */
import { createHash } from "node:crypto";
import {
  allRows,
  applyEncoding,
  cellValue,
  checkedRows,
  type ColumnKind,
  type Decimals,
  decodeState,
  decodeUtf8,
  DEFAULT_LIMITS,
  type Encoding,
  type FeatureTransform,
  type Formats,
  fromRows,
  guardTransform,
  parseCsvText,
  parseModel,
  type Prediction,
  predictModel,
  type ReadTable,
  readTable,
  type Schema,
  type Strays,
  type Table,
  toRows,
  unpack,
} from "../tabular/mod.ts";
import { argmaxRow } from "../tabular/metrics.ts";
import { libraryWrote } from "./ideate/library.ts";
import { MODEL_FORMAT, modelDir, type ModelManifest } from "./model_dir.ts";
import type { TreeNode, TreeState } from "./types.ts";

/** A model or an input that cannot be used: the message says which file and why. */
export class PredictError extends Error {
  override name = "PredictError";
}

export interface Predicted {
  csv: string;
  rows: number;
  /** Input columns the model does not use (ignored). */
  ignored: string[];
  /** Cells of the model's numeric columns that are no number, read as missing (as the run read its own). */
  strays: Strays[];
  /** Cells of the model's numeric columns written as formatted numbers (`$1,200`), read as numbers. */
  formats: Formats[];
  /** The model's numeric columns written with decimal commas (a ;-separated file), read as numbers. */
  decimals?: Decimals;
  /** The input's row names (csv.ts), set aside and written back beside each prediction as `row_name`. */
  rowNames?: NonNullable<ReadTable["rowNames"]>;
  columns: string[];
}

const sha256 = (t: string) => createHash("sha256").update(t).digest("hex");

function readJson(path: string, what: string): unknown {
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (e) {
    throw new PredictError(
      e instanceof Deno.errors.NotFound ? `${path}: no ${what} (${whyMissing})` : `${path}: ${String(e)}`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new PredictError(`${path}: Cannot read the ${what}: ${(e as Error).message}`);
  }
}

const whyMissing = "the run did not reach its final test, or its refit failed; see its report/report.md";

/** The manifest, checked for what prediction needs (`dir`: a member's directory instead of `model/`). */
export function readManifest(runDir: string, dir = modelDir(runDir)): ModelManifest {
  const path = `${dir}/model.json`;
  const m = readJson(path, "model manifest") as ModelManifest;
  if (m?.format !== MODEL_FORMAT) throw new PredictError(`${path}: format is not "${MODEL_FORMAT}"`);
  if (!Array.isArray(m.columns) || !Array.isArray(m.steps)) {
    throw new PredictError(`${path}: columns or steps is not a list`);
  }
  return m;
}

function pathTo(s: TreeState, id: string): TreeNode[] {
  const out: TreeNode[] = [];
  for (let at: TreeNode | undefined = s.nodes[id]; at; at = at.parent ? s.nodes[at.parent] : undefined) {
    out.unshift(at);
  }
  return out;
}

/** Every step file of the model is, byte for byte, one the library wrote for this run (or refusal). */
function checkTrusted(runDir: string, m: ModelManifest, dir: string): void {
  if (m.predict !== "in-process") {
    throw new PredictError(`${runDir}: this model cannot predict: ${m.predict_note}`);
  }
  if (m.steps.length === 0) return;
  const s = readJson(`${runDir}/state.json`, "run state") as TreeState;
  if (!s?.nodes?.[m.node]) throw new PredictError(`${runDir}/state.json: no node ${m.node}`);
  const sources = new Map<string, string>();
  for (const n of pathTo(s, m.node)) {
    const h = n.hypothesis;
    if (!h?.step) continue;
    if (!libraryWrote(s, h)) {
      throw new PredictError(`${runDir}: step ${h.step.path} is not the library's, so it cannot run here`);
    }
    sources.set(`${artifactDir(dir, m)}/${h.step.path}`, h.step.source);
  }
  for (const st of m.steps) {
    let text: string;
    try {
      text = Deno.readTextFileSync(`${dir}/${st.path}`);
    } catch (e) {
      throw new PredictError(`${dir}/${st.path}: ${String(e)}`);
    }
    if (sources.get(st.path) !== text || sha256(text) !== st.sha256) {
      throw new PredictError(
        `${dir}/${st.path}: changed since the run wrote it; refusing to run it`,
      );
    }
  }
}

function csvCell(v: string): string {
  return /[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v;
}

/** Reads `file` for the model: missing columns are named (an error), extra ones returned (ignored). */
function readInput(
  file: string,
  m: ModelManifest,
  delimiter: string,
): { table: ReadTable; ignored: string[]; ids: string[]; strays: Strays[]; formats: Formats[] } {
  let bytes: Uint8Array;
  try {
    bytes = Deno.readFileSync(file);
  } catch (e) {
    const why = e instanceof Deno.errors.NotFound ? "no such file" : String(e);
    throw new PredictError(`${file}: Cannot read the CSV: ${why}`);
  }
  const text = decodeUtf8(unpack(bytes, file, DEFAULT_LIMITS.maxChars * 4), file);
  const header = parseCsvText(text, file, { delimiter }).header;
  const want = new Set(m.columns.map((c) => c.name));
  const missing = m.columns.map((c) => c.name).filter((n) => !header.includes(n));
  if (missing.length) {
    throw new PredictError(
      `${file}:1: the model needs column${missing.length > 1 ? "s" : ""} ${
        missing.map((n) => JSON.stringify(n)).join(", ")
      }, which the header lacks`,
    );
  }
  const ids = m.id_columns.filter((c) => header.includes(c));
  const ignored = header.filter((h) => !want.has(h) && !ids.includes(h));
  const types: Record<string, ColumnKind> = {};
  for (const c of m.columns) types[c.name] = c.kind as ColumnKind;
  for (const c of ids) types[c] = "text";
  const table = readTable(text, file, { types, delimiter, strays: "missing" });
  return { table, ignored, ids, strays: table.strays ?? [], formats: table.formats ?? [] };
}

/**
 * Imports an artifact directory's steps (artifact.json, steps/) chained into one transform: the harness'
 * composer, handed in by the command line (this room does not import the harness' modules).
 */
export type LoadSteps = (artifactDir: string, target: string) => Promise<FeatureTransform<unknown[]>>;

/** Predictions of the run's model for every row of `file` (columns separated by `delimiter`), as CSV text (an ensemble: its members'
 * predictions, each from its own saved model, weighted and averaged). */
export async function predictFile(
  runDir: string,
  file: string,
  loadSteps: LoadSteps,
  delimiter = ",",
): Promise<Predicted> {
  const m = readManifest(runDir);
  const dir = modelDir(runDir);
  if (m.predict !== "in-process") {
    throw new PredictError(`${runDir}: this model cannot predict: ${m.predict_note}`);
  }
  const { table: input, ignored, ids, strays, formats } = readInput(file, m, delimiter);
  const names = input.rowNames?.labels ?? null;
  let pred: Prediction;
  if (m.members?.length) {
    const preds: Prediction[] = [];
    for (const member of m.members) {
      if (!/^members\/[A-Za-z0-9_-]+$/.test(member.dir) || !member.node || !/^n\d+$/.test(member.node)) {
        throw new PredictError(
          `${dir}/model.json: member directory ${JSON.stringify(member.dir)} is not under members/`,
        );
      }
      const at = `${dir}/${member.dir}`;
      const mm = readManifest(runDir, at);
      checkTrusted(runDir, mm, at);
      preds.push(await predictOne(at, mm, input, loadSteps));
    }
    pred = blendPredictions(preds, m.members.map((x) => x.weight));
  } else {
    checkTrusted(runDir, m, dir);
    pred = await predictOne(dir, m, input, loadSteps);
  }
  const csv = toCsv(m, input, ids, pred, names);
  const rowNames = input.rowNames ? { rowNames: input.rowNames } : {};
  const decimals = input.decimals ? { decimals: input.decimals } : {};
  return {
    csv,
    rows: input.nRows,
    ignored,
    strays,
    formats,
    ...decimals,
    ...rowNames,
    columns: header(m, ids, names),
  };
}

function blendPredictions(preds: Prediction[], weights: number[]): Prediction {
  const values = new Float64Array(preds[0]!.values.length);
  preds.forEach((p, i) => {
    for (let j = 0; j < values.length; j++) values[j] = values[j]! + weights[i]! * p.values[j]!;
  });
  return { task: preds[0]!.task, k: preds[0]!.k, values };
}

/** A saved model's artifact directory: its own `artifact/`, or an ensemble member's `../../artifact_<node>`. */
function artifactDir(dir: string, m: ModelManifest): string {
  const a = m.artifact_dir ?? "artifact";
  if (a !== "artifact" && a !== `../../artifact_${m.node}`) {
    throw new PredictError(
      `${dir}/model.json: artifact_dir ${JSON.stringify(a)} is not where models keep it`,
    );
  }
  return a;
}

/** One saved model's predictions for `input` (its steps, encoders and model, from `dir`). */
async function predictOne(
  dir: string,
  m: ModelManifest,
  input: Table,
  loadSteps: LoadSteps,
): Promise<Prediction> {
  const table: Table = {
    nRows: input.nRows,
    columns: m.columns.map((c) => input.columns.find((x) => x.name === c.name)!),
  };
  let evalTable = table;
  if (m.steps.length) {
    const transform = await loadSteps(`${dir}/${artifactDir(dir, m)}`, m.target);
    const state = decodeState(readJson(`${dir}/steps_state.json`, "steps' state"));
    const rows = checkedRows(
      guardTransform(
        "transform",
        () => transform.transform(state as unknown[], toRows(table, allRows(table))),
      ),
      table.nRows,
      "transform",
    );
    evalTable = fromRows(rows, { columns: m.steps_output ?? [] } as Schema);
  }
  const encoding = readJson(`${dir}/encoding.json`, "encoding") as Encoding;
  const file = m.files?.model ?? m.files?.gbdt ?? "gbdt.json";
  if (typeof file !== "string" || !/^[a-z_]+\.json$/.test(file)) {
    throw new PredictError(
      `${dir}/model.json: files.model ${JSON.stringify(file)} is not a file name in the model`,
    );
  }
  const fitted = parseModel(readJson(`${dir}/${file}`, "model"));
  return predictModel(fitted, applyEncoding(encoding, evalTable, allRows(evalTable)));
}

function header(m: ModelManifest, ids: string[], names: string[] | null): string[] {
  return [
    "row",
    ...(names ? ["row_name"] : []),
    ...ids,
    "prediction",
    ...(m.task === "regression" ? [] : m.classes.map((c) => `p_${c}`)),
  ];
}

function toCsv(
  m: ModelManifest,
  input: Table,
  ids: string[],
  pred: Prediction,
  names: string[] | null,
): string {
  const idCols = ids.map((n) => input.columns.find((c) => c.name === n)!);
  const lines = [header(m, ids, names).map(csvCell).join(",")];
  for (let i = 0; i < input.nRows; i++) {
    const cells = [
      String(i),
      ...(names ? [names[i]!] : []),
      ...idCols.map((c) => String(cellValue(c, i) ?? "")),
    ];
    if (m.task === "regression") cells.push(String(pred.values[i]));
    else {
      cells.push(m.classes[argmaxRow(pred, i)]!);
      if (pred.k === 1) cells.push(String(1 - pred.values[i]!), String(pred.values[i]));
      else for (let c = 0; c < pred.k; c++) cells.push(String(pred.values[i * pred.k + c]));
    }
    lines.push(cells.map(csvCell).join(","));
  }
  return lines.join("\n") + "\n";
}
