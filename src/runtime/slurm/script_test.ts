import { deepEqual, equal, throws } from "node:assert/strict";
import {
  batchScript,
  checkDirs,
  checkSpec,
  jobName,
  parseJobName,
  sbatchArgs,
  sbatchEnv,
  shQuote,
} from "./script.ts";
import { SlurmError, type SubmitSpec } from "./types.ts";

const spec: SubmitSpec = {
  name: "arrow.run1.N4.2",
  argv: ["bwrap", "--ro-bind", "/", "/", "--", "python3", "-c", "print('a b')", "$HOME"],
  env: { PATH: "/usr/bin", ARROW_NODE: "N4", SLURM_MEM_PER_CPU: "100", SBATCH_PARTITION: "x" },
  cwd: "/runs/r1/nodes/n4",
  stdout: "/runs/r1/logs/N4.out",
  stderr: "/runs/r1/logs/N4.err",
  options: { partition: "gpu", time: "90", mem: "4G", gres: "gpu:1", cpus: 2 },
};

Deno.test("batchScript() execs the argv word for word, with nothing expanded by the shell", () => {
  const script = batchScript(spec);
  equal(script.split("\n")[0], "#!/bin/bash");
  equal(
    script.split("\n").at(-2),
    `exec bwrap --ro-bind / / -- python3 -c 'print('\\''a b'\\'')' '$HOME'`,
  );
});

Deno.test("shQuote() round-trips through bash for awkward words", async () => {
  const words = ["plain", "", "it's", "a b", "$(id)", "`x`", "back\\slash", "new\nline", "*"];
  const out = await new Deno.Command("bash", {
    args: ["-c", `printf '%s\\0' ${words.map(shQuote).join(" ")}`],
    stdout: "piped",
  }).output();
  deepEqual(new TextDecoder().decode(out.stdout).split("\0").slice(0, -1), words);
});

Deno.test("sbatchArgs() sets the job's files, no requeue, and the validated options", () => {
  deepEqual(sbatchArgs(spec), [
    "--parsable",
    "--job-name=arrow.run1.N4.2",
    "--export=ALL",
    "--chdir=/runs/r1/nodes/n4",
    "--output=/runs/r1/logs/N4.out",
    "--error=/runs/r1/logs/N4.err",
    "--open-mode=append",
    "--no-requeue",
    "--kill-on-invalid-dep=yes",
    "--nodes=1",
    "--ntasks=1",
    "--partition=gpu",
    "--time=90",
    "--mem=4G",
    "--gres=gpu:1",
    "--cpus-per-task=2",
  ]);
});

Deno.test("sbatchEnv() is the given environment without SLURM_*/SBATCH_* and with SLURM_CONF", () => {
  deepEqual(sbatchEnv(spec, "/etc/slurm.conf"), {
    PATH: "/usr/bin",
    ARROW_NODE: "N4",
    SLURM_CONF: "/etc/slurm.conf",
  });
});

Deno.test("checkSpec() rejects relative paths, % in file names, bad names and empty argv", () => {
  const bad: Partial<SubmitSpec>[] = [
    { cwd: "nodes/n4" },
    { stdout: "/runs/%j.out" },
    { name: "has space" },
    { argv: [] },
    { env: { "A-B": "x" } },
  ];
  for (const b of bad) {
    throws(
      () => checkSpec({ ...spec, ...b }),
      (e: unknown) => e instanceof SlurmError && e.kind === "invalid",
    );
  }
  checkSpec(spec);
});

Deno.test("jobName() names run, node and attempt with characters every Slurm tool accepts", () => {
  const name = jobName("2026-11-30T16:00 run.b", "N/4.x", 3);
  equal(name, "arrow.2026-11-30T16_00_run_b.N_4_x.3");
  deepEqual(parseJobName(name), { run: "2026-11-30T16_00_run_b", node: "N_4_x", attempt: 3 });
  equal(parseJobName("arrow.a.b.c.1"), null);
});

Deno.test("checkDirs() refuses a missing working or output directory (Slurm would run the job in /tmp)", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const ok = { ...spec, cwd: dir, stdout: `${dir}/o.txt`, stderr: `${dir}/e.txt` };
    checkDirs(ok);
    for (
      const bad of [{ cwd: `${dir}/nope` }, { stdout: `${dir}/logs/o.txt` }, { stderr: `${dir}/logs/e.txt` }]
    ) {
      throws(
        () => checkDirs({ ...ok, ...bad }),
        (e: unknown) =>
          e instanceof SlurmError && e.kind === "invalid" && /is not a directory/.test(e.message),
      );
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
