/**
 * The bridge from a local launch command (runtime/backend/launch.ts `Command`) to a Slurm submission: the same
 * program, arguments, environment and working directory, its output in the run's logs/ as a local run's,
 * under a job name that identifies run, node and attempt. Only free-running workers can become jobs: a
 * lock-step worker needs arrow on its stdin every tick.
 *
 * @module
 */
import type { Command } from "../backend/launch.ts";
import { jobName } from "./script.ts";
import { SlurmError, type SlurmOptions, type SubmitSpec } from "./types.ts";

export interface JobContext {
  runDir: string;
  /** The run's id (its directory name); part of every job name, so a resumed run finds its own jobs. */
  runId: string;
  node: string;
  attempt: number;
  options?: SlurmOptions;
}

/** The job name prefix of every job of a run (for `findJobs` after a crash). */
export function runPrefix(runId: string): string {
  return jobName(runId, "x", 0).slice(0, -"x.0".length);
}

/** The submission for a node's worker command. Throws SlurmError("invalid") for a lock-step worker. */
export function slurmSpec(
  cmd: Pick<Command, "cmd" | "args" | "env" | "cwd" | "lockstep">,
  ctx: JobContext,
): SubmitSpec {
  if (cmd.lockstep) {
    throw new SlurmError(
      `Cannot run ${ctx.node} as a Slurm job: a lock-step worker (mock or built-in) is driven tick by tick ` +
        "over its stdin; it runs locally",
      "invalid",
    );
  }
  return {
    name: jobName(ctx.runId, ctx.node, ctx.attempt),
    argv: [cmd.cmd, ...cmd.args],
    // What proc.ts spawn() adds for a local child, so both backends give the program the same environment.
    env: { RUST_BACKTRACE: "0", NO_COLOR: "1", ...cmd.env },
    cwd: cmd.cwd,
    stdout: `${ctx.runDir}/logs/${ctx.node}.out`,
    stderr: `${ctx.runDir}/logs/${ctx.node}.err`,
    ...(ctx.options ? { options: ctx.options } : {}),
    scriptCopy: `${ctx.runDir}/.arrow/slurm/${ctx.node}.${ctx.attempt}.sh`,
  };
}
