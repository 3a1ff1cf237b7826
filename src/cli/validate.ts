/**
 * `arrow validate <plan.yaml>…`: load each plan and list every problem as file:line:col; exit 1 if any
 * plan has errors. Warnings (such as a demoted 2-cycle) are printed but do not fail.
 *
 * @module
 */
import { formatDiagnostic, loadPlan } from "../graph/load.ts";
import { parse } from "./args.ts";
import { InputError, UsageError } from "./errors.ts";

export const help = `Usage: arrow validate <plan.yaml> [more.yaml…]

Checks plan files: YAML syntax, unknown keys, wrong types, duplicate node ids, edges to unknown nodes,
scopes that are absolute, escape the run directory or overlap, lap budgets above ACCEPT_MAX_LAPS (3),
reactive nodes with no stream edge, cycles over artifact edges, and more. Every problem is printed as
file:line:col: message. Exit 0 when every plan is valid, 1 otherwise.

Options:
  --quiet   Print problems only (no "ok" lines)
  -h, --help`;

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse("validate", argv, { quiet: { type: "boolean" } }, Infinity);
  if (!positionals.length) {
    throw new UsageError("arrow validate: missing plan file (see arrow validate --help)");
  }
  let bad = 0;
  for (const file of positionals) {
    let text: string;
    try {
      text = await Deno.readTextFile(file);
    } catch (e) {
      throw new InputError(
        `arrow validate: cannot read ${file}: ${
          e instanceof Deno.errors.NotFound ? "no such file" : (e as Error).message
        }`,
      );
    }
    const r = loadPlan(text, file);
    for (const w of r.warnings) console.log(`${formatDiagnostic(w)} (warning)`);
    if (r.errors.length) {
      bad++;
      for (const e of r.errors) console.log(formatDiagnostic(e));
    } else if (!values.quiet) {
      console.log(`${file}: ok (${r.plan!.nodes.length} nodes, ${r.plan!.edges.length} edges)`);
    }
  }
  return bad ? 1 : 0;
}
