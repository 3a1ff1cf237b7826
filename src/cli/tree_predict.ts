/**
 * `arrow tree predict <run|latest> <new.csv> [-o out.csv]`: predictions of a finished tree run's saved model
 * (its admitted artifact refit on dev + held-out) for a new CSV, one row per input row.
 *
 * @module
 */
import { resolve } from "node:path";
import { writeAtomic } from "../runtime/atomic.ts";
import {
  CsvError,
  decimalsNote,
  formatsNote,
  rowNamesNote,
  straysNote,
  TransformError,
} from "../tabular/mod.ts";
import {
  chain,
  type LoadSteps,
  loadSteps,
  parseArtifact,
  PredictError,
  predictFile,
  StepError,
} from "../tree/mod.ts";
import { parse } from "./args.ts";
import { InputError, UsageError } from "./errors.ts";
import { printable } from "./escape.ts";
import { delimiterFlag } from "./data_checks.ts";

const FLAGS = {
  output: { type: "string", short: "o" },
  "runs-dir": { type: "string" },
  delimiter: { type: "string" },
} as const;

/** The delimiter the run read its CSV with (state.json's config), "," when it says none. */
function runDelimiter(runDir: string): string {
  try {
    const d = JSON.parse(Deno.readTextFileSync(`${runDir}/state.json`))?.config?.delimiter;
    return typeof d === "string" && d.length === 1 ? d : ",";
  } catch {
    return ",";
  }
}

/** The newest tree run in `runsDir` that saved a model. */
function latest(runsDir: string): string {
  const found: string[] = [];
  try {
    for (const e of Deno.readDirSync(runsDir)) {
      if (!e.isDirectory) continue;
      try {
        if (Deno.statSync(`${runsDir}/${e.name}/model/model.json`).isFile) found.push(e.name);
      } catch {
        // no model there
      }
    }
  } catch (e) {
    throw new InputError(`arrow tree predict: cannot list ${printable(runsDir)}: ${String(e)}`);
  }
  // Run names begin with their UTC start time, so the greatest name is the newest run.
  const name = found.sort().at(-1);
  if (!name) {
    throw new InputError(`arrow tree predict: no tree run with a saved model in ${printable(runsDir)}/`);
  }
  return `${runsDir}/${name}`;
}

function runDirOf(arg: string, runsDir: string): string {
  if (arg === "latest") return latest(runsDir);
  for (const p of [arg, `${runsDir}/${arg}`]) {
    try {
      if (Deno.statSync(`${p}/tree.db`).isFile) return Deno.realPathSync(p);
    } catch {
      // not this one
    }
  }
  throw new InputError(`arrow tree predict: no tree run "${printable(arg)}" (nor in ${printable(runsDir)}/)`);
}

/** The saved artifact's steps, imported here (Arrow's library code only: predict.ts checked them). */
const librarySteps: LoadSteps = async (dir, target) => {
  let raw: unknown;
  try {
    raw = JSON.parse(Deno.readTextFileSync(`${dir}/artifact.json`));
  } catch (e) {
    throw new PredictError(`${dir}/artifact.json: ${(e as Error).message}`);
  }
  try {
    const manifest = parseArtifact(raw);
    return chain(await loadSteps(dir, manifest), target)!;
  } catch (e) {
    if (e instanceof TypeError || e instanceof StepError) throw new PredictError(`${dir}: ${e.message}`);
    throw e;
  }
};

export async function predictMain(argv: string[]): Promise<number> {
  const { values, positionals } = parse("tree predict", argv, FLAGS, 2);
  if (positionals.length < 2) {
    throw new UsageError(
      "arrow tree predict: give the run (a path, a run id or latest) and the CSV to predict",
    );
  }
  const runsDir = resolve((values["runs-dir"] as string | undefined) ?? "runs");
  const runDir = runDirOf(positionals[0]!, runsDir);
  const given = delimiterFlag("tree predict", values.delimiter);
  const delimiter = given ?? runDelimiter(runDir);
  if (given === undefined && delimiter !== ",") {
    console.error(
      `note: columns read as separated by ${
        JSON.stringify(delimiter)
      }, as the run's CSV was (--delimiter to change)`,
    );
  }
  let out;
  try {
    out = await predictFile(runDir, positionals[1]!, librarySteps, delimiter);
  } catch (e) {
    if (
      e instanceof PredictError || e instanceof CsvError || e instanceof TransformError ||
      e instanceof StepError
    ) {
      throw new InputError(`arrow tree predict: ${e.message}`);
    }
    throw e;
  }
  if (out.ignored.length) {
    console.error(
      `note: ignored column(s) the model does not use: ${out.ignored.map((c) => printable(c)).join(", ")}`,
    );
  }
  if (out.rowNames) console.error(`note: ${printable(rowNamesNote(out.rowNames))}; written back as row_name`);
  for (const s of out.strays) console.error(`note: ${printable(straysNote(s))}`);
  for (const f of out.formats) console.error(`note: ${printable(formatsNote(f))}`);
  if (out.decimals) console.error(`note: ${printable(decimalsNote(out.decimals))}`);
  const target = values.output as string | undefined;
  if (target) {
    writeAtomic(target, out.csv);
    console.error(`${out.rows} prediction(s) → ${printable(target)} (${out.columns.join(", ")})`);
  } else await Deno.stdout.write(new TextEncoder().encode(out.csv));
  return 0;
}
