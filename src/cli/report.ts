/**
 * `arrow report <run>`: the run's anytime report, regenerated from state.json and incidents.jsonl.
 *
 * @module
 */
import type { Incident } from "../model/state.ts";
import { renderReport } from "../record/report.ts";
import { parse } from "./args.ts";
import { UsageError } from "./errors.ts";
import { loadRunState, resolveRunDir } from "./rundir.ts";
import { isTreeRun, treeReport } from "./tree_runs.ts";
import { readUsage } from "./usage_files.ts";

export const help = `Usage: arrow report <run-dir | run-id | latest> [--runs-dir D]

Prints the anytime report of a run: the question, the verdict (provisional while the run is live), the
verified knowledge with its comparability tuples, what was refused and why, LLM use (tokens per node and
in total, with calls and cost from the run's usage files when the API reported them), and the black box.
For a tree run (arrow tree) it prints the report the run wrote, report/report.md.

Options:
  --runs-dir <dir>  Where to look up a run id (default ./runs)
  -h, --help`;

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse("report", argv, { "runs-dir": { type: "string" } }, 1);
  if (!positionals[0]) throw new UsageError("arrow report: missing run directory (see arrow report --help)");
  const runDir = resolveRunDir(positionals[0], values["runs-dir"] as string | undefined);
  if (isTreeRun(runDir)) {
    console.log(treeReport(runDir).trimEnd());
    return 0;
  }
  const state = loadRunState(runDir);
  const incidents = (await Deno.readTextFile(`${runDir}/incidents.jsonl`)).split("\n").filter(Boolean)
    .map((l) => JSON.parse(l) as Incident);
  console.log(renderReport(state, incidents, readUsage(runDir)));
  return 0;
}
