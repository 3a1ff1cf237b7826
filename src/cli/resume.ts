/**
 * `arrow resume <run>`: continue a run whose arrow process died (SIGKILL, power loss, Ctrl-C) from its
 * last persisted tick. A finished run is left untouched.
 *
 * @module
 */
import { resumeRun } from "../engine/resume.ts";
import { TamperedError } from "../record/blackbox.ts";
import { acquireLock, LockedError } from "../runtime/lock.ts";
import { SlurmError } from "../runtime/slurm/mod.ts";
import { intFlag, parse } from "./args.ts";
import { InputError, UsageError } from "./errors.ts";
import { printable } from "./escape.ts";
import { onInterrupt } from "./interrupt.ts";
import { Progress } from "./progress.ts";
import { printOutcome, recordEnd } from "./run_outcome.ts";
import { resolveRunDir } from "./rundir.ts";
import { isTreeRun } from "./tree_runs.ts";
import { findBwrap } from "./sandbox.ts";
import { findUnshare } from "../runtime/sandbox/mod.ts";

export const help = `Usage: arrow resume <run-dir | run-id | latest> [options]

Continues a run whose arrow process died (killed, crashed, power cut, Ctrl-C) from its last persisted
tick. replay.jsonl is the authority: a torn last line is dropped (and reported), incidents.jsonl and a
missing or corrupt state.json are rebuilt from it, processes the dead run left behind are stopped, every
node's scope is restored to its recorded content, running nodes restart (long nodes from their
checkpoint), and the run goes on to its verdict. Resuming a finished run says so and changes nothing.
Only one arrow process may work on a run directory at a time. A run on the Slurm runtime keeps it: jobs
that are still queued or running are re-attached (never submitted twice), jobs of nodes that no longer run
are cancelled, and only a job Slurm lost restarts from its checkpoint ($SLURM_CONF, else the cluster the
run was started on). A tree run (arrow tree) is continued exactly as arrow tree --resume does.

Options:
  --tick-ms <n>      Pause between ticks (default: the run's own)
  --max-ticks <n>    Fuse whatever still runs after this many ticks (default 5000)
  --runs-dir <dir>   Where to look up a run id (default ./runs)
  --json             Print one JSON object at the end
  --quiet            Print only the verdict and the run directory
  -h, --help`;

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse("resume", argv, {
    "tick-ms": { type: "string" },
    "max-ticks": { type: "string" },
    "runs-dir": { type: "string" },
    json: { type: "boolean" },
    quiet: { type: "boolean" },
  }, 1);
  if (!positionals[0]) throw new UsageError("arrow resume: missing run directory (see arrow resume --help)");
  const runDir = resolveRunDir(positionals[0], values["runs-dir"] as string | undefined);
  const json = values.json === true;
  if (isTreeRun(runDir)) {
    for (const f of ["tick-ms", "max-ticks", "quiet"]) {
      if (values[f] !== undefined) {
        throw new UsageError(`arrow resume: --${f} is for task-graph runs; ${runDir} is a tree run`);
      }
    }
    const runsDir = runDir.slice(0, runDir.lastIndexOf("/"));
    const tree = await import("./tree.ts");
    return await tree.main(["--resume", runDir, "--runs-dir", runsDir, ...(json ? ["--json"] : [])]);
  }
  const quiet = json || values.quiet === true;
  let meta: Record<string, unknown> = {};
  try {
    meta = JSON.parse(Deno.readTextFileSync(`${runDir}/run.json`));
  } catch {
    meta = {};
  }
  const tickMs = intFlag("resume", "tick-ms", values["tick-ms"], 0, Number(meta.tick_ms ?? 0) || 0);
  const maxTicks = intFlag("resume", "max-ticks", values["max-ticks"], 1, 5000);

  let lock;
  try {
    lock = acquireLock(runDir);
  } catch (e) {
    if (e instanceof LockedError) throw new InputError(`arrow resume: ${e.message}`);
    throw e;
  }
  if (lock.tookOverFrom !== null && !quiet) {
    console.error(
      `arrow resume: took over a stale lock left by pid ${lock.tookOverFrom} (no longer running)`,
    );
  }
  const mode = String(meta.mode ?? "mock");
  const builtins = mode === "real" ? (await import("../workers/real/registry.ts")).BUILTINS : {};
  const progress = new Progress(quiet);
  using interrupt = onInterrupt();
  const t0 = performance.now();
  const bwrap = await findBwrap();
  // An unconfined run's programs are watched again where a mount namespace can be made here.
  const probe = !bwrap && meta.unsandboxed === true ? await findUnshare() : null;
  let out;
  try {
    out = await resumeRun({
      runDir,
      tickMs,
      maxTicks,
      builtins,
      bwrap,
      unsandboxed: meta.unsandboxed === true,
      watch: probe && !("why" in probe) ? probe : null,
      runsDir: meta.run_id ? runDir.slice(0, runDir.lastIndexOf("/")) : null,
      slurmConf: Deno.env.get("SLURM_CONF") ??
        (typeof meta.slurm_conf === "string" ? meta.slurm_conf : null),
      signal: interrupt.signal,
      onTick: (s, ev) => progress.tick(s, ev),
    }, (r) => {
      if (quiet) return;
      const lines = [`arrow resume ${runDir}: continuing after tick ${r.recovery.state.tick}`];
      if (r.recovery.torn) {
        lines.push(`  dropped a torn last line of replay.jsonl (${r.recovery.torn} bytes)`);
      }
      if (r.recovery.stateFile !== "ok") {
        const was = { missing: "missing", corrupt: "corrupt", differs: "out of step with replay.jsonl" };
        lines.push(`  state.json was ${was[r.recovery.stateFile]}; rebuilt from replay.jsonl`);
      }
      if (r.recovery.incidentsRepaired) lines.push("  incidents.jsonl rewritten to match replay.jsonl");
      if (r.stopped.length) {
        lines.push(
          `  stopped ${r.stopped.length} process group(s) left by the dead run: ${r.stopped.join(", ")}`,
        );
      }
      // File names are the workers' choice: escaped, so none can drive the terminal.
      if (r.lost.length) {
        lines.push(`  could not restore: ${r.lost.map((p) => printable(p, { max: 300 })).join(", ")}`);
      }
      if (r.reattached.length) lines.push(`  re-attached to the Slurm jobs of: ${r.reattached.join(", ")}`);
      if (r.cancelledJobs.length) {
        lines.push(`  cancelled Slurm jobs of nodes no longer running: ${r.cancelledJobs.join(", ")}`);
      }
      if (r.restarted.length) lines.push(`  restarted: ${r.restarted.join(", ")}`);
      console.log(lines.join("\n"));
    });
  } catch (e) {
    if (e instanceof SyntaxError || e instanceof TamperedError) {
      throw new InputError(`arrow resume: ${e.message}`);
    }
    if (e instanceof SlurmError) {
      throw new InputError(`arrow resume: this run's long nodes run on Slurm: ${e.message}`, [
        "set SLURM_CONF to the cluster's slurm.conf and resume again; no job was touched, no scope restored",
      ]);
    }
    throw e;
  } finally {
    progress.end();
    lock.release();
  }
  const { state, report } = out;
  if (report.recovery.state.verdict !== null) {
    if (!json) {
      const repaired = report.recovery.torn || report.recovery.stateFile !== "ok" ||
        report.recovery.incidentsRepaired;
      console.log(
        `${runDir} already finished at tick ${state.tick} with ${state.verdict}; nothing to resume${
          repaired ? " (its black box was repaired)" : ""
        }`,
      );
      return 0;
    }
    return printOutcome(state, runDir, json, true);
  }
  const times = { resumed_at: new Date().toISOString(), resume_wall_ms: Math.round(performance.now() - t0) };
  if (!recordEnd("resume", runDir, meta, times, state)) return 130;
  return printOutcome(state, runDir, json, quiet);
}
