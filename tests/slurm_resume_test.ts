/**
 * After arrow dies, a resumed run re-attaches to its Slurm jobs from the run's job journal: the job of a node
 * that is still running is adopted (not submitted twice), the job of a node that no longer runs is cancelled,
 * and a job the journal never recorded (arrow died right after sbatch) is found by the run's name prefix.
 */
import { deepEqual, equal } from "node:assert/strict";
import { runPrefix, slurmSpec } from "../src/runtime/slurm/backend.ts";
import { JobJournal, reattach } from "../src/runtime/slurm/journal.ts";
import { SlurmClient } from "../src/runtime/slurm/mod.ts";
import { cluster, JOB_ENV, LOADED_MS } from "./slurm_helper.ts";

const WAIT = 30_000;

Deno.test({
  name: "reattach() adopts the running node's job, cancels the stopped node's, and finds an unrecorded one",
  ignore: cluster.conf === null,
  fn: async () => {
    const runDir = await Deno.makeTempDir({ prefix: "arrow-slurm-run-" });
    const runId = runDir.split("/").at(-1)!;
    Deno.mkdirSync(`${runDir}/logs`);
    const submitted: string[] = [];
    const first = await SlurmClient.connect({ conf: cluster.conf, pollMs: 100, callTimeoutMs: LOADED_MS });
    const second = await SlurmClient.connect({ conf: cluster.conf, pollMs: 100, callTimeoutMs: LOADED_MS });
    try {
      const journal = new JobJournal(runDir);
      // Bounded waits: a job of a failed test ends by itself.
      const waitGo = ["sh", "-c", "for i in $(seq 600); do [ -e go ] && exit 0; sleep 0.05; done; exit 9"];
      const job = async (node: string, record: boolean) => {
        const spec = slurmSpec({
          cmd: waitGo[0]!,
          args: waitGo.slice(1),
          env: JOB_ENV,
          cwd: runDir,
          lockstep: false,
        }, {
          runDir,
          runId,
          node,
          attempt: 1,
        });
        const id = await first.submit(spec);
        submitted.push(id);
        if (record) journal.submitted(node, 1, id, spec.name);
        return id;
      };
      const a = await job("A", true);
      const b = await job("B", true);
      const c = await job("C", false);
      await first.close();

      const r = await reattach(
        second,
        new JobJournal(runDir),
        runPrefix(runId),
        (n, att) => n === "A" && att === 1,
      );
      deepEqual(r.attached.map((x) => [x.record.node, x.view.jobId]), [["A", a]]);
      equal(["PENDING", "RUNNING"].includes(r.attached[0]!.view.state), true);
      deepEqual(r.cancelled.map((x) => x.jobId), [b]);
      deepEqual(r.unrecorded.map((v) => v.jobId), [c]);
      equal(
        (await second.waitFor(b, (v) => v.state !== "PENDING" && v.state !== "RUNNING", WAIT)).state,
        "CANCELLED",
      );
      deepEqual(new JobJournal(runDir).open().map((x) => x.node), ["A"]);

      Deno.writeTextFileSync(`${runDir}/go`, "");
      const end = await second.waitFor(a, (v) => v.state !== "PENDING" && v.state !== "RUNNING", WAIT);
      deepEqual([end.state, end.exitCode], ["COMPLETED", 0]);
    } finally {
      await Promise.all(submitted.map((id) => second.cancel(id)));
      await first.close();
      await second.close();
      await Deno.remove(runDir, { recursive: true });
    }
  },
});
