/**
 * A job that runs past its time limit ends as TIMEOUT. Slurm rounds every limit up to whole minutes and
 * checks limits about every 30 s, so waiting out a one-minute `--time` would take 60–90 s; the test submits
 * with `time: "1"` (and checks Slurm took it), then lowers the running job's limit to zero minutes the way
 * an administrator can, and waits for slurmctld's own time-limit check to end it.
 */
import { deepEqual, equal } from "node:assert/strict";
import { execBounded } from "../src/runtime/slurm/exec.ts";
import { jobName, SlurmClient } from "../src/runtime/slurm/mod.ts";
import { cluster, JOB_ENV, LOADED_MS } from "./slurm_helper.ts";

Deno.test({
  name: "SlurmClient.state() reports a job past its time limit as TIMEOUT, ended by a signal",
  ignore: cluster.conf === null,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "arrow-slurm-test-" });
    const c = await SlurmClient.connect({ conf: cluster.conf, pollMs: 200, callTimeoutMs: LOADED_MS });
    try {
      const id = await c.submit({
        name: jobName("t", "timeout", 1),
        argv: ["sleep", "600"],
        env: JOB_ENV,
        cwd: dir,
        stdout: `${dir}/out.txt`,
        stderr: `${dir}/err.txt`,
        options: { time: "1" },
      });
      await c.waitFor(id, (v) => v.state === "RUNNING", 30_000);
      const env = { PATH: `${JOB_ENV.PATH}:/usr/sbin`, SLURM_CONF: cluster.conf! };
      const shown = await execBounded("squeue", ["--noheader", `--jobs=${id}`, "--format=%l"], {
        env,
        timeoutMs: 5000,
        maxBytes: 1000,
      });
      equal(shown.stdout.trim(), "1:00", "sbatch must have passed --time=1");
      const upd = await execBounded("scontrol", ["update", `JobId=${id}`, "TimeLimit=0"], {
        env,
        timeoutMs: 5000,
        maxBytes: 1000,
      });
      equal(upd.code, 0, upd.stderr);
      const v = await c.waitFor(id, (x) => x.state !== "RUNNING", 90_000);
      deepEqual([v.state, v.exitCode, v.reason], ["TIMEOUT", null, "TimeLimit"]);
      equal(v.signal !== null && v.signal > 0, true, `a TIMEOUT job is ended by a signal, got ${v.signal}`);
    } finally {
      await c.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
