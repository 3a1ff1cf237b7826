/**
 * Tree mode on the local Slurm cluster (`arrow tree --runtime slurm`): executors run as batch jobs, watched
 * through the shared filesystem with the same hang rule as a local child, and a run ends with the same
 * outcome as the same run with local executors.
 *
 * @module
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { SlurmClient } from "../src/runtime/slurm/mod.ts";
import { runJobChild } from "../src/tree/execute/job_child.ts";
import type { ChildCommand } from "../src/tree/execute/sandbox.ts";
import { K_FREEZE } from "../src/thresholds.ts";
import { arrow } from "./helpers/cli.ts";
import { cluster, JOB_ENV, LOADED_MS } from "./slurm_helper.ts";

const ignore = cluster.conf === null;
const CSV = new URL("./fixtures/tree/small.csv", import.meta.url).pathname;
const OBSERVE_MS = 300;

function shell(dir: string, script: string): ChildCommand {
  return {
    cmd: "/bin/bash",
    args: ["-c", script],
    env: JOB_ENV,
    cwd: dir,
    audit: `${dir}/audit.jsonl`,
    progress: null,
    read: [dir],
    write: [dir],
    sandbox: "deno",
  };
}

Deno.test({
  name:
    "runJobChild(): a job's metric lines are read, its exit code kept; a silent one is hung and cancelled",
  ignore,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "arrow-slurm-tree-" });
    const c = await SlurmClient.connect({ conf: cluster.conf, pollMs: 100, callTimeoutMs: LOADED_MS });
    try {
      const watch = { observeMs: OBSERVE_MS, wallMs: 120_000, logDir: `${dir}/logs`, run: "t", attempt: 1 };
      const ok3 = await runJobChild(
        c,
        shell(
          dir,
          `for i in 0 1 2; do echo "{\\"step\\": $i, \\"accuracy\\": 0.5}" >> m.jsonl; done; exit 3`,
        ),
        { ...watch, label: "ok", metrics: `${dir}/m.jsonl` },
      );
      equal(ok3.exit, 3, ok3.stderrTail.join("\n"));
      equal(ok3.hung, null);
      equal(ok3.lines.length, 3);
      ok(Deno.readTextFileSync(`${dir}/logs/ok.sbatch`).includes("m.jsonl"), "the batch script is kept");

      const marker = `arrow-tree-hang-${dir.split("/").at(-1)}`;
      const silent = await runJobChild(
        c,
        shell(dir, `echo '{"step": 0, "accuracy": 0.5}' >> h.jsonl; exec -a ${marker} sleep 300`),
        { ...watch, label: "hang", metrics: `${dir}/h.jsonl` },
      );
      ok(silent.hung, JSON.stringify(silent));
      equal(silent.hung!.step, 1);
      ok(silent.hung!.silent_ms >= K_FREEZE * OBSERVE_MS);
      equal(silent.exit, null, "cancelled, not exited");
      ok(silent.stderrTail.some((l) => /CANCELLED/.test(l)), silent.stderrTail.join("\n"));
      const alive = [...Deno.readDirSync("/proc")].filter((e) => /^\d+$/.test(e.name)).some((e) => {
        try {
          return Deno.readTextFileSync(`/proc/${e.name}/cmdline`).startsWith(marker);
        } catch {
          return false;
        }
      });
      equal(alive, false, "the hung program must not outlive its job");
    } finally {
      await c.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "arrow tree --runtime slurm: executors run as jobs, and the run ends as the local one does",
  ignore,
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "arrow-slurm-tree-cli-" });
    try {
      const run = async (extra: string[]) => {
        const args = [
          "tree",
          "--data",
          CSV,
          "--target",
          "label",
          "--cycles",
          "1",
          "--executors",
          "2",
          "--json",
        ];
        const r = await arrow(
          [...args, "--runs-dir", `${tmp}/${extra.length ? "slurm" : "local"}`, ...extra],
          {
            env: { SLURM_CONF: cluster.conf! },
          },
        );
        equal(r.code, 0, r.stderr);
        return JSON.parse(r.stdout);
      };
      const [local, slurm] = [await run([]), await run(["--runtime", "slurm"])];
      // Paths name each run's own directory; everything else must agree.
      const { run_dir: _a, model: _am, splits: _as, ...l } = local;
      const { run_dir: _b, model: _bm, splits: _bs, ...s } = slurm;
      deepEqual(s, l);
      const logs = [...Deno.readDirSync(`${slurm.run_dir}/logs`)].map((e) => e.name);
      const jobs = logs.filter((n) => n.endsWith(".sbatch"));
      equal(jobs.length, slurm.node_count, `one batch script per executor attempt: ${logs.join(", ")}`);
      ok(
        !logs.some((n) => n.includes("recompute") && n.endsWith(".sbatch")),
        "Arrow's own checks stay local",
      );
      equal(
        [...Deno.readDirSync(`${local.run_dir}/logs`)].filter((e) => e.name.endsWith(".sbatch")).length,
        0,
      );
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});

Deno.test("arrow tree --runtime names a bad value", async () => {
  const r = await arrow(["tree", "--data", CSV, "--target", "label", "--runtime", "k8s"]);
  equal(r.code, 1);
  ok(/--runtime must be one of local, slurm/.test(r.stderr), r.stderr);
});
