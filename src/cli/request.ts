/**
 * `arrow reopen` and `arrow taint`: an operator's request, written to the run's request channel
 * (.arrow/requests.jsonl). The engine senses it at its next tick — a live run at once, an interrupted one
 * when it is resumed — and the request lands in replay.jsonl like every other event, so the run stays
 * replayable.
 *
 * @module
 */
import { REQUESTS } from "../runtime/scope/mod.ts";
import { appendDurable } from "../runtime/atomic.ts";
import { acquireLock, LockedError } from "../runtime/lock.ts";
import { parse } from "./args.ts";
import { printable } from "./escape.ts";
import { InputError, UsageError } from "./errors.ts";
import { loadRunState, resolveRunDir } from "./rundir.ts";

export function requestHelp(op: "reopen" | "taint"): string {
  const what = op === "reopen"
    ? `Reopens a node (an upstream result was wrong, e.g. a data bug was found): the node and everything built
on it turn stale and re-run (STALE_CASCADE).`
    : `Taints a node (the frozen protocol or evaluation harness is found broken): everything downstream is
re-evaluated, but training (role train) is spared (TAINT_INVALIDATION).`;
  return `Usage: arrow ${op} <run-dir | run-id | latest> <node> --reason "<why>" [--runs-dir <dir>]

${what}
The request goes into the run's request channel; a running arrow acts on it at its next tick, an
interrupted run when you resume it (arrow resume). It is recorded in the black box with your reason.

Options:
  --reason <text>    Why (required; kept as evidence)
  --runs-dir <dir>   Where to look up a run id (default ./runs)
  -h, --help`;
}

export function requestMain(op: "reopen" | "taint", argv: string[]): Promise<number> {
  const { values, positionals } = parse(op, argv, {
    reason: { type: "string" },
    "runs-dir": { type: "string" },
  }, 2);
  const [run, node] = positionals;
  if (!run || !node) throw new UsageError(`arrow ${op}: needs a run and a node (see arrow ${op} --help)`);
  const reason = String(values.reason ?? "").trim();
  if (!reason) throw new UsageError(`arrow ${op}: --reason "<why>" is required (it is kept as evidence)`);
  if (reason.length > 500) throw new UsageError(`arrow ${op}: --reason is longer than 500 characters`);
  const runDir = resolveRunDir(run, values["runs-dir"] as string | undefined);
  const state = loadRunState(runDir);
  const ids = state.plan.nodes.map((n) => n.id);
  if (!ids.includes(node)) {
    throw new InputError(`arrow ${op}: run ${runDir} has no node "${printable(node)}"`, [
      `nodes: ${ids.join(", ")}`,
    ]);
  }
  if (state.verdict !== null) {
    throw new InputError(
      `arrow ${op}: ${runDir} already finished with ${state.verdict}; ${op} acts on a live or interrupted run`,
      [`start a new run instead (arrow run ...)`],
    );
  }
  let live = false;
  try {
    acquireLock(runDir).release();
  } catch (e) {
    if (!(e instanceof LockedError)) throw e;
    live = true;
  }
  appendDurable(
    `${runDir}/${REQUESTS}`,
    JSON.stringify({ op, node, reason, at: new Date().toISOString() }) + "\n",
  );
  console.log(
    live
      ? `arrow ${op}: requested; the running arrow acts on it at its next tick`
      : `arrow ${op}: requested; it takes effect when the run continues: arrow resume ${runDir}`,
  );
  return Promise.resolve(0);
}
