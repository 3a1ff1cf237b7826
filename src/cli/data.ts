/**
 * User data sets for `arrow run --real --data file.csv --target col`: the file is checked up front (every
 * problem named by file and line, exit 1 before anything runs), copied into `<run>/data/`, and the plan's
 * data node is pointed at the copy. Its worker then writes the bytes into its scope unchanged, so the run's
 * data_hash is the sha256 of the user's file.
 *
 * @module
 */
import type { Plan, PlanNode } from "../graph/types.ts";
import { CsvError, parseCsv, type Table } from "../workers/lib/csv.ts";
import { InputError, readInput } from "./errors.ts";

/** Fewest rows that still leave a dev part with a spread to score R² on (60/20/20 split). */
export const MIN_ROWS = 10;

/** Checks that `table` (from `file`) can be the data set of a regression on `target`. */
export function checkTable(table: Table, file: string, target: string): void {
  const t = table.columns.indexOf(target);
  if (t < 0) {
    throw new InputError(`arrow run: ${file}:1: no column "${target}" to predict`, [
      `columns in ${file}: ${table.columns.join(", ")}`,
    ]);
  }
  if (table.columns.length < 2) {
    throw new InputError(`arrow run: ${file}:1: no feature columns besides the target "${target}"`);
  }
  if (table.rows.length < MIN_ROWS) {
    throw new InputError(
      `arrow run: ${file}: ${table.rows.length} data rows; at least ${MIN_ROWS} are needed for a train/dev/test split`,
    );
  }
  if (table.rows.every((r) => r[t] === table.rows[0]![t])) {
    throw new InputError(
      `arrow run: ${file}: column "${target}" has the same value on every line; nothing to predict`,
    );
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

export function withUserData(plan: Plan, file: string, target: string, runDir: string): Promise<Plan> {
  try {
    const node = dataNode(plan);
    let table: Table;
    try {
      table = parseCsv(readInput(file, "--data"), file);
    } catch (e) {
      if (e instanceof CsvError) throw new InputError(`arrow run: ${e.message}`);
      throw e;
    }
    checkTable(table, file, target);
    const dest = `${runDir}/data/${file.split("/").pop()}`;
    Deno.mkdirSync(`${runDir}/data`, { recursive: true });
    Deno.copyFileSync(file, dest);
    const w = node.worker as Extract<PlanNode["worker"], { type: "builtin" }>;
    const worker = { ...w, args: { ...w.args, csv: dest, target } };
    return Promise.resolve({ ...plan, nodes: plan.nodes.map((n) => (n === node ? { ...n, worker } : n)) });
  } catch (e) {
    return Promise.reject(e);
  }
}
