import { deepEqual, equal } from "node:assert/strict";
import type { PlanNode } from "../../graph/types.ts";
import { placeOf, slurmNodes } from "./backend.ts";
import { exitOf, jobEnd, jobOptions } from "./slurm.ts";
import type { JobState, JobView } from "../slurm/types.ts";

const view = (state: JobState, exitCode: number | null, signal: number | null, reason = "None"): JobView => ({
  jobId: "42",
  state,
  slurmState: state,
  exitCode,
  signal,
  reason,
  source: "squeue",
  seenAt: 0,
});

Deno.test("exitOf() makes only COMPLETED an exit 0: every end Slurm forced is a crash", () => {
  deepEqual(exitOf(view("COMPLETED", 0, null)), { exit: 0, signal: null });
  deepEqual(exitOf(view("FAILED", 3, null)), { exit: 3, signal: null });
  deepEqual(exitOf(view("FAILED", null, 11)), { exit: null, signal: "SIGSEGV" });
  deepEqual(exitOf(view("TIMEOUT", null, 15, "TimeLimit")), { exit: null, signal: "SIGTERM" });
  // A status of 0 left by a job Slurm ended is not a claim.
  for (const s of ["PREEMPTED", "NODE_FAIL", "OUT_OF_MEMORY", "CANCELLED", "UNKNOWN"] as const) {
    equal(exitOf(view(s, 0, null)).exit, null, s);
  }
  deepEqual(exitOf(view("CANCELLED", null, 64)), { exit: null, signal: "signal 64" });
});

Deno.test("jobEnd() carries id, state, Slurm's word and reason for the crash evidence", () => {
  deepEqual(jobEnd({ ...view("TIMEOUT", null, 15, "TimeLimit"), slurmState: "TIMEOUT" }), {
    job_id: "42",
    state: "TIMEOUT",
    slurm_state: "TIMEOUT",
    reason: "TimeLimit",
  });
});

Deno.test("jobOptions() gives a long node the gpu as gres unless it names a gres or a partition", () => {
  deepEqual(jobOptions({ kind: "long" }), { gres: "gpu:1" });
  deepEqual(jobOptions({ kind: "long", slurm: { partition: "gpu" } }), { partition: "gpu" });
  deepEqual(jobOptions({ kind: "long", slurm: { gres: "none", time: "01:30:00", mem: "4g" } }), {
    gres: "none",
    time: "01:30:00",
    mem: "4G",
  });
  deepEqual(jobOptions({ kind: "fast" }), {});
});

const node = (p: Partial<PlanNode>): PlanNode => ({
  id: "N",
  title: "",
  kind: "long",
  role: "train",
  scope: "N",
  mock: {},
  acceptance: ["@manifest"],
  spawn_only: false,
  can_spawn: false,
  spawn_on: [],
  budget: {},
  ...p,
});

Deno.test("placeOf() and slurmNodes(): only long nodes with a free-running, non-agent worker become jobs", () => {
  const train = node({ id: "T", worker: { type: "builtin", name: "gbdt_train" } });
  const cmd = node({ id: "C", worker: { type: "command", argv: ["python3", "t.py"] } });
  const agent = node({ id: "A", worker: { type: "agent", prompt: "p" } });
  const fast = node({ id: "F", kind: "fast", worker: { type: "command", argv: ["true"] } });
  const lock = node({ id: "L", worker: { type: "builtin", name: "ckpt_eval" } });
  const builtins = {
    gbdt_train: { script: "x", lockstep: false },
    ckpt_eval: { script: "y", lockstep: true },
  };
  const plan = { runtime: "slurm" as const, nodes: [train, cmd, agent, fast, lock] };
  deepEqual(slurmNodes(plan, "real", builtins), ["T", "C"]);
  deepEqual(slurmNodes(plan, "mock", builtins), []);
  deepEqual(slurmNodes({ ...plan, runtime: "local" }, "real", builtins), []);
  deepEqual(
    [train, agent, fast].map((n) => placeOf("slurm", n, { lockstep: false })),
    ["slurm", "local", "local"],
  );
  equal(placeOf("slurm", train, { lockstep: true }), "local");
  equal(placeOf("local", train, { lockstep: false }), "local");
});
