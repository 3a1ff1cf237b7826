import { deepEqual, equal, throws } from "node:assert/strict";
import type { Command } from "../backend/launch.ts";
import { runPrefix, slurmSpec } from "./backend.ts";
import { JobJournal } from "./journal.ts";
import { jobName } from "./script.ts";
import { SlurmError } from "./types.ts";

const cmd: Pick<Command, "cmd" | "args" | "env" | "cwd" | "lockstep"> = {
  cmd: "/usr/bin/bwrap",
  args: ["--ro-bind", "/", "/", "--", "python3", "train.py"],
  env: { PATH: "/usr/bin", ARROW_NODE: "N4", NO_COLOR: "0" },
  cwd: "/runs/r1/nodes/n4",
  lockstep: false,
};

Deno.test("slurmSpec() submits the local command unchanged, with its output in the run's logs", () => {
  deepEqual(
    slurmSpec(cmd, { runDir: "/runs/r1", runId: "r1", node: "N4", attempt: 2, options: { time: "90" } }),
    {
      name: "arrow.r1.N4.2",
      argv: ["/usr/bin/bwrap", "--ro-bind", "/", "/", "--", "python3", "train.py"],
      env: { RUST_BACKTRACE: "0", NO_COLOR: "0", PATH: "/usr/bin", ARROW_NODE: "N4" },
      cwd: "/runs/r1/nodes/n4",
      stdout: "/runs/r1/logs/N4.out",
      stderr: "/runs/r1/logs/N4.err",
      options: { time: "90" },
      scriptCopy: "/runs/r1/.arrow/slurm/N4.2.sh",
    },
  );
});

Deno.test("slurmSpec() refuses a lock-step worker, which needs arrow on its stdin", () => {
  throws(
    () => slurmSpec({ ...cmd, lockstep: true }, { runDir: "/r", runId: "r", node: "N1", attempt: 1 }),
    (e: unknown) => e instanceof SlurmError && e.kind === "invalid" && /lock-step/.test(e.message),
  );
});

Deno.test("runPrefix() is the start of every job name of the run, and of no other run's", () => {
  equal(jobName("r1", "N4", 2).startsWith(runPrefix("r1")), true);
  equal(jobName("r10", "N4", 2).startsWith(runPrefix("r1")), false);
});

Deno.test("JobJournal.open() lists jobs submitted and not ended, skipping a torn last line", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const j = new JobJournal(dir);
    j.submitted("A", 1, "10", "arrow.r.A.1");
    j.submitted("B", 1, "11", "arrow.r.B.1");
    j.ended("A", 1, "10", "arrow.r.A.1");
    j.submitted("A", 2, "12", "arrow.r.A.2");
    Deno.writeTextFileSync(j.path, '{"op":"submit","node":"C","att', { append: true });
    deepEqual(new JobJournal(dir).open().map((r) => [r.node, r.attempt, r.jobId]), [["B", 1, "11"], [
      "A",
      2,
      "12",
    ]]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
