/**
 * Writes a batch job: the script (which `exec`s the node's argv, so the program itself receives Slurm's
 * signals and its exit status is the job's), the sbatch arguments, and the environment sbatch runs with.
 * The job's environment is exactly the one given: sbatch runs with a cleared environment plus that one and
 * `--export=ALL` (`--export=NONE` makes Slurm build the user's login environment on the node, which costs
 * 1–3 s per job here and leaks site settings into the run).
 *
 * @module
 */
import { SlurmError, type SlurmOptions, type SubmitSpec } from "./types.ts";

/** Quotes one word for bash: single quotes, with embedded quotes spliced in. */
export function shQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}

/** A name part with only [A-Za-z0-9_-] (so "." separates parts unambiguously), at most 60 characters. */
export function namePart(s: string): string {
  return s.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 60);
}

/** A job name naming run, node and attempt: `arrow.<run>.<node>.<attempt>`, safe for every Slurm tool. */
export function jobName(run: string, node: string, attempt: number): string {
  return `arrow.${namePart(run)}.${namePart(node)}.${attempt}`;
}

/** The parts of a name made by `jobName` (run and node as `namePart` cleaned them), or null. */
export function parseJobName(name: string): { run: string; node: string; attempt: number } | null {
  const m = name.match(/^arrow\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.(\d+)$/);
  return m ? { run: m[1]!, node: m[2]!, attempt: Number(m[3]) } : null;
}

/** The batch script: one `exec` of the argv, with a header saying what it is. */
export function batchScript(spec: Pick<SubmitSpec, "name" | "argv">): string {
  return [
    "#!/bin/bash",
    `# ${spec.name}: written by arrow (src/runtime/slurm/script.ts).`,
    "# exec: the program becomes the job's process, receives Slurm's signals, and its exit status is the job's.",
    `exec ${spec.argv.map(shQuote).join(" ")}`,
    "",
  ].join("\n");
}

function checkPath(what: string, p: string): void {
  if (!p.startsWith("/")) {
    throw new SlurmError(`Cannot submit: ${what} "${p}" must be an absolute path`, "invalid");
  }
  // Slurm expands %j, %x, … in --output/--error; a literal % would be rewritten.
  if (/[%\n\0]/.test(p)) {
    throw new SlurmError(`Cannot submit: ${what} "${p}" contains "%" or a control character`, "invalid");
  }
}

/**
 * The working directory and the output files' directory must exist on the shared filesystem: Slurm runs a
 * job whose --chdir is missing in /tmp instead (with only a line in its stderr), and fails a job whose
 * output directory is missing before it starts.
 */
export function checkDirs(spec: SubmitSpec): void {
  for (
    const [what, dir] of [
      ["cwd", spec.cwd],
      ["the directory of stdout", spec.stdout.slice(0, spec.stdout.lastIndexOf("/")) || "/"],
      ["the directory of stderr", spec.stderr.slice(0, spec.stderr.lastIndexOf("/")) || "/"],
    ]
  ) {
    let ok = false;
    try {
      ok = Deno.statSync(dir!).isDirectory;
    } catch {
      ok = false;
    }
    if (!ok) {
      throw new SlurmError(`Cannot submit "${spec.name}": ${what} "${dir}" is not a directory`, "invalid");
    }
  }
}

/** Checks a submission before anything runs; throws SlurmError("invalid") naming the problem. */
export function checkSpec(spec: SubmitSpec): void {
  if (!/^[A-Za-z0-9_.:-]{1,200}$/.test(spec.name)) {
    throw new SlurmError(
      `Cannot submit: job name "${spec.name}" must be 1-200 of [A-Za-z0-9_.:-]`,
      "invalid",
    );
  }
  if (spec.argv.length === 0 || !spec.argv[0]) throw new SlurmError("Cannot submit: empty argv", "invalid");
  if (spec.argv.some((a) => a.includes("\0"))) {
    throw new SlurmError("Cannot submit: an argument contains a NUL byte", "invalid");
  }
  checkPath("cwd", spec.cwd);
  checkPath("stdout", spec.stdout);
  checkPath("stderr", spec.stderr);
  for (const [k, v] of Object.entries(spec.env)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) || v.includes("\0")) {
      throw new SlurmError(
        `Cannot submit: environment variable "${k}" has an invalid name or value`,
        "invalid",
      );
    }
  }
}

/** sbatch arguments for a submission (the script comes on stdin). */
export function sbatchArgs(spec: SubmitSpec): string[] {
  const o: SlurmOptions = spec.options ?? {};
  const args = [
    "--parsable",
    `--job-name=${spec.name}`,
    "--export=ALL",
    `--chdir=${spec.cwd}`,
    `--output=${spec.stdout}`,
    `--error=${spec.stderr}`,
    "--open-mode=append",
    // Arrow decides restarts (from a checkpoint, with ARROW_RESUME_FROM): Slurm must never rerun a job itself.
    "--no-requeue",
    "--kill-on-invalid-dep=yes",
    "--nodes=1",
    "--ntasks=1",
  ];
  if (o.partition) args.push(`--partition=${o.partition}`);
  if (o.time) args.push(`--time=${o.time}`);
  if (o.mem) args.push(`--mem=${o.mem}`);
  if (o.account) args.push(`--account=${o.account}`);
  if (o.qos) args.push(`--qos=${o.qos}`);
  if (o.gres) args.push(`--gres=${o.gres}`);
  if (o.cpus) args.push(`--cpus-per-task=${o.cpus}`);
  return args;
}

/**
 * The environment sbatch runs with, which `--export=ALL` makes the job's. SBATCH_* and SLURM_* variables
 * would change sbatch's own options (SLURM_MEM_PER_CPU clashes with --mem inside an allocation), so they are
 * dropped; SLURM_CONF names the cluster.
 */
export function sbatchEnv(spec: SubmitSpec, conf: string | null): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(spec.env)) {
    if (!k.startsWith("SBATCH_") && !k.startsWith("SLURM_")) env[k] = v;
  }
  if (conf) env.SLURM_CONF = conf;
  return env;
}
