/**
 * `arrow tree --resume` on the Slurm runtime: the executor jobs a killed arrow left still queued or running
 * are cancelled (the resumed tree runs those hypotheses again under the same job names), and the jobs of
 * another run are left alone. Needs a cluster (tests/slurm_helper.ts); ignored with the reason without one.
 *
 * @module
 */
import { deepEqual, equal } from "node:assert/strict";
import { isFinal, jobName, SlurmClient } from "../src/runtime/slurm/mod.ts";
import { cancelLeftJobs } from "../src/tree/execute/job_child.ts";
import { cluster, JOB_ENV, LOADED_MS } from "./slurm_helper.ts";

Deno.test({
  name: "cancelLeftJobs() cancels the run's live executor jobs, and only the run's",
  ignore: cluster.conf === null,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "arrow-slurm-tree-resume-" });
    const c = await SlurmClient.connect({ conf: cluster.conf, pollMs: 100, callTimeoutMs: LOADED_MS });
    const run = `r${dir.split("-").at(-1)}`;
    const submit = (name: string) =>
      c.submit({
        name,
        argv: ["/bin/sleep", "300"],
        env: JOB_ENV,
        cwd: dir,
        stdout: `${dir}/${name}.out`,
        stderr: `${dir}/${name}.err`,
      });
    try {
      const mine = await submit(jobName(run, "n1", 1));
      const other = await submit(jobName(`${run}x`, "n1", 1));
      await c.waitFor(mine, (v) => v.state === "RUNNING" || v.state === "PENDING", LOADED_MS);
      deepEqual(await cancelLeftJobs(c, run), [mine]);
      const end = await c.waitFor(mine, (v) => isFinal(v.state), LOADED_MS);
      equal(end.state, "CANCELLED");
      equal(isFinal(c.state(other).state), false, "another run's job keeps running");
      await c.cancel(other);
      deepEqual(await cancelLeftJobs(c, run), [], "nothing is left to cancel the second time");
    } finally {
      await c.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
