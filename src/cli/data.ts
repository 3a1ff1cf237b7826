/**
 * User data sets for `arrow run --real --data file.csv --target col`: the file is checked up front (every
 * problem named by file and line, exit 1 before anything runs), copied into `<run>/data/`, and the plan's
 * data node is pointed at the copy. Its worker then writes the bytes into its scope unchanged, so the run's
 * data_hash is the sha256 of the user's file.
 *
 * @module
 */
import type { Plan, PlanNode } from "../graph/types.ts";
import { CsvError, isGzip, utf16Bom } from "../tabular/mod.ts";
import { parseNumericCsv } from "../tabular/numeric.ts";
import { checkData, MIN_ROWS } from "./data_checks.ts";
import { InputError } from "./errors.ts";

export { MIN_ROWS };

/**
 * The real path's built-in workers fit a regression on numbers: past the checks both modes share, every
 * cell must be a number (arrow tree takes any column), by the very reader the workers use, so a file this
 * accepts is one they read; the first cell that is not is named by its line.
 */
function numericOnly(file: string, delimiter: string): void {
  const head = new Uint8Array(2);
  try {
    using f = Deno.openSync(file);
    f.readSync(head);
  } catch {
    // Unreadable: the reader below says why.
  }
  if (isGzip(head)) {
    throw new InputError(
      `arrow run: ${file}: it is gzip-compressed, and the built-in workers read it as text`,
      [
        "gunzip it first (arrow tree --data reads it as it is)",
      ],
    );
  }
  const wide = utf16Bom(head);
  if (wide) {
    throw new InputError(
      `arrow run: ${file}: it is ${wide.toUpperCase()} text, and the built-in workers read UTF-8`,
      [
        "save it as CSV UTF-8 (arrow tree --data reads it as it is)",
      ],
    );
  }
  try {
    parseNumericCsv(Deno.readTextFileSync(file), file, delimiter);
  } catch (e) {
    if (!(e instanceof CsvError)) throw e;
    throw new InputError(`arrow run: ${file}:${e.line}: ${e.reason}`, [
      "arrow run --data's built-in workers take numeric cells only; arrow tree --data takes any column",
    ]);
  }
}

/** The node that produces the plan's data set with a built-in worker (the one --data replaces). */
function dataNode(plan: Plan): PlanNode {
  const found = plan.nodes.filter((n) => n.role === "data" && n.worker?.type === "builtin");
  if (found.length !== 1) {
    throw new InputError(
      `arrow run: --data needs exactly one node with role data and a built-in worker; the plan has ${found.length}`,
    );
  }
  return found[0]!;
}

export function withUserData(
  plan: Plan,
  file: string,
  target: string,
  runDir: string,
  delimiter = ",",
): Promise<Plan> {
  try {
    const node = dataNode(plan);
    const checked = checkData("run", file, target, {
      ...(delimiter !== "," ? { delimiter } : {}),
      cells: () => numericOnly(file, delimiter),
    });
    for (const n of checked.notes) console.error(`note: ${n}`);
    for (const w of checked.warnings) console.error(`warning: ${w}`);
    const dest = `${runDir}/data/${file.split("/").pop()}`;
    Deno.mkdirSync(`${runDir}/data`, { recursive: true });
    Deno.copyFileSync(file, dest);
    const w = node.worker as Extract<PlanNode["worker"], { type: "builtin" }>;
    const worker = {
      ...w,
      args: { ...w.args, csv: dest, target, ...(delimiter !== "," ? { delimiter } : {}) },
    };
    return Promise.resolve({ ...plan, nodes: plan.nodes.map((n) => (n === node ? { ...n, worker } : n)) });
  } catch (e) {
    return Promise.reject(e);
  }
}
