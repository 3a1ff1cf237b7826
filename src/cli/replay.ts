/**
 * `arrow replay <run>`: re-renders a run tick by tick from replay.jsonl alone. No worker runs and no other
 * file is read (except state.json with --check, to prove the two agree byte for byte).
 *
 * @module
 */
import { canonicalPretty } from "../model/json.ts";
import type { RunState } from "../model/state.ts";
import { narrate } from "../record/narrate.ts";
import { printable } from "./escape.ts";
import { chainProblem } from "../record/blackbox.ts";
import { verdictProblem } from "../record/verdict_check.ts";
import { readHead } from "../record/chain.ts";
import { parseReplay, states } from "../record/replay.ts";
import { intFlag, parse } from "./args.ts";
import { InputError, UsageError } from "./errors.ts";
import { statusTable } from "./progress.ts";
import { resolveRunDir } from "./rundir.ts";
import { isTreeRun, treeReplay } from "./tree_runs.ts";

export const help = `Usage: arrow replay <run-dir | run-id | latest> [options]

Re-renders a run tick by tick from its replay.jsonl: status changes, incidents, spawned nodes, the verdict.
It runs no worker and reads no other file, and ends in the same final state as state.json. A tree run
(arrow tree) is re-rendered step by step from tree/replay.jsonl, whose lines are hash-chained the same way;
--check also proves its steps are its SQLite store's (tree.db, the authority) and fold to state.json.

Options:
  --tick-ms <n>     Pause between ticks, to watch it unfold (default 0)
  --check           Also verify the hash chain of replay.jsonl (an edited, dropped or forged line is named)
                    and compare the rebuilt state with state.json byte for byte; exit 1 on any difference
  --json            Print the rebuilt final state as JSON instead
  --runs-dir <dir>  Where to look up a run id (default ./runs)
  -h, --help`;

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse("replay", argv, {
    "tick-ms": { type: "string" },
    check: { type: "boolean" },
    json: { type: "boolean" },
    "runs-dir": { type: "string" },
  }, 1);
  if (!positionals[0]) throw new UsageError("arrow replay: missing run directory (see arrow replay --help)");
  const tickMs = intFlag("replay", "tick-ms", values["tick-ms"], 0, 0);
  const runDir = resolveRunDir(positionals[0], values["runs-dir"] as string | undefined);
  if (isTreeRun(runDir)) {
    if (tickMs) throw new UsageError("arrow replay: --tick-ms is for task-graph runs; this is a tree run");
    return treeReplay(runDir, { check: values.check === true, json: values.json === true });
  }
  let text: string;
  try {
    text = await Deno.readTextFile(`${runDir}/replay.jsonl`);
  } catch {
    throw new InputError(`arrow replay: ${runDir}/replay.jsonl is missing`);
  }
  let parsed;
  try {
    parsed = parseReplay(text);
  } catch (e) {
    throw new InputError(`arrow replay: ${runDir}/${(e as Error).message}`);
  }
  if (parsed.torn) {
    console.error(`arrow replay: dropped a torn last line (${parsed.torn} bytes) in replay.jsonl`);
  }
  const tamper = chainProblem(parsed, readHead(runDir)) ?? verdictProblem(parsed.lines);
  if (tamper && values.check) {
    console.error(`arrow replay: ${runDir}/replay.jsonl was tampered with: it ${tamper}`);
    return 1;
  }
  if (tamper) console.error(`arrow replay: warning: replay.jsonl ${tamper}`);
  let final: RunState | undefined;
  for (const { line, state } of states(parsed.lines)) {
    final = state;
    if (values.json) continue;
    const parts: string[] = [];
    for (const ev of line.events) {
      if (ev.e === "status") parts.push(`${ev.node} ${ev.from}→${ev.to}`);
      else if (ev.e === "spawn") parts.push(`${ev.node} spawned`);
      else if (ev.e === "incident") {
        parts.push(`\n         ${ev.incident.type}: ${printable(narrate(ev.incident))}`);
      } else if (ev.e === "verdict") parts.push(`\n         verdict: ${ev.verdict}`);
    }
    if (parts.length) {
      console.log(`tick ${String(line.tick).padStart(3)}  ${parts.join(", ").replace(/, \n/g, "\n")}`);
    }
    if (tickMs) await new Promise((r) => setTimeout(r, tickMs));
  }
  if (!final) throw new InputError(`arrow replay: ${runDir}/replay.jsonl is empty`);
  const rebuilt = canonicalPretty(final);
  if (values.json) console.log(rebuilt.trimEnd());
  else {console.log(
      `\n${statusTable(final)}\n\n${
        final.verdict ?? "NO VERDICT YET (run unfinished)"
      } at tick ${final.tick}`,
    );}
  if (values.check) {
    let onDisk = "";
    try {
      onDisk = await Deno.readTextFile(`${runDir}/state.json`);
    } catch {
      onDisk = "";
    }
    if (onDisk !== rebuilt) {
      console.error("arrow replay: the rebuilt state differs from state.json");
      return 1;
    }
    if (!values.json) console.log("rebuilt state equals state.json byte for byte");
  }
  return 0;
}
