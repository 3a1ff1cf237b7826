/**
 * The Slurm client against a live one-node cluster: a job's life from PENDING/RUNNING to how it ended (exit
 * code, cancel), files a job writes seen live by the submitter, re-attaching after the client is dropped,
 * and sbatch's refusals as clear errors.
 */
import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import { JsonlTail } from "../src/runtime/proc/tail.ts";
import { execBounded } from "../src/runtime/slurm/exec.ts";
import {
  isStuckPending,
  jobName,
  SlurmClient,
  SlurmError,
  type SubmitSpec,
} from "../src/runtime/slurm/mod.ts";
import type { JobView } from "../src/runtime/slurm/types.ts";
import { cluster, JOB_ENV, LOADED_MS } from "./slurm_helper.ts";

const ignore = cluster.conf === null;
const ended = (v: JobView) => v.state !== "PENDING" && v.state !== "RUNNING";
const WAIT = 30_000;
/** A pending job's reason is set at the scheduler's next pass ("None" until then; "Submitted" is ours). */
const reasoned = (v: JobView) => v.state !== "PENDING" || (v.source !== "submit" && v.reason !== "None");

function spec(dir: string, name: string, argv: string[]): SubmitSpec {
  return { name, argv, env: JOB_ENV, cwd: dir, stdout: `${dir}/out.txt`, stderr: `${dir}/err.txt` };
}

/** Runs `fn` with a client and a scratch directory; every job the test submitted is cancelled afterwards. */
async function withClient(fn: (c: SlurmClient, dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "arrow-slurm-test-" });
  const c = await SlurmClient.connect({ conf: cluster.conf, pollMs: 100, callTimeoutMs: LOADED_MS });
  const ids: string[] = [];
  const submit = c.submit.bind(c);
  c.submit = async (s) => {
    const id = await submit(s);
    ids.push(id);
    return id;
  };
  try {
    await fn(c, dir);
  } finally {
    // Clean-up of jobs that have mostly ended already: a slow or restarting controller is not the test's
    // failure (the tests cancel what they mean to cancel themselves, and check it).
    await Promise.all(ids.map((id) => c.cancel(id).catch((e) => console.warn(`clean-up: ${e.message}`))));
    await c.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test({
  name: "SlurmClient.submit() runs the argv with exactly the given environment and reports COMPLETED, exit 0",
  ignore,
  fn: () =>
    withClient(async (c, dir) => {
      const seen: string[] = [];
      const id = await c.submit({
        ...spec(dir, jobName("t", "ok", 1), [
          "sh",
          "-c",
          'echo "$ARROW_NODE ${HOME:-nohome}"; env > env.txt',
        ]),
        env: { ...JOB_ENV, ARROW_NODE: "N1" },
      });
      equal(c.state(id).state, "PENDING");
      c.onChange((v) => v.jobId === id && seen.push(v.state));
      const v = await c.waitFor(id, ended, WAIT);
      deepEqual([v.state, v.exitCode, v.signal], ["COMPLETED", 0, null]);
      ok(seen.includes("RUNNING") || seen.includes("COMPLETED"), `states seen: ${seen}`);
      equal(Deno.readTextFileSync(`${dir}/out.txt`), "N1 nohome\n");
      const env = Deno.readTextFileSync(`${dir}/env.txt`);
      ok(!/^HOME=/m.test(env), "HOME of the submitter must not leak into the job");
      match(env, /^SLURM_JOB_ID=\d+$/m);
    }),
});

Deno.test({
  name: "SlurmClient.state() reports a failing job as FAILED with its exit code",
  ignore,
  fn: () =>
    withClient(async (c, dir) => {
      const id = await c.submit(spec(dir, jobName("t", "fail", 1), ["sh", "-c", "exit 7"]));
      const v = await c.waitFor(id, ended, WAIT);
      deepEqual([v.state, v.exitCode, v.signal, v.reason], ["FAILED", 7, null, "NonZeroExitCode"]);
    }),
});

Deno.test({
  name: "SlurmClient.cancel() ends a running job: CANCELLED, killed by a signal",
  ignore,
  fn: () =>
    withClient(async (c, dir) => {
      const id = await c.submit(spec(dir, jobName("t", "cancel", 1), ["sleep", "300"]));
      await c.waitFor(id, (v) => v.state === "RUNNING", WAIT);
      await c.cancel(id);
      const v = await c.waitFor(id, ended, WAIT);
      equal(v.state, "CANCELLED");
      equal(v.exitCode, null);
      await c.cancel(id); // cancelling an ended job is not an error
    }),
});

Deno.test({
  name: "a job's metrics.jsonl is visible to the submitter line by line while the job runs",
  ignore,
  fn: () =>
    withClient(async (c, dir) => {
      // Each step waits for the test's acknowledgement of the previous line: no timing assumptions.
      const script = [
        "for i in 1 2 3; do",
        '  echo "{\\"step\\": $i, \\"loss\\": 0.$i}" >> metrics.jsonl',
        "  while [ ! -e ack.$i ]; do sleep 0.05; done",
        "done",
      ].join("\n");
      const id = await c.submit(spec(dir, jobName("t", "metrics", 1), ["bash", "-c", script]));
      const tail = new JsonlTail(`${dir}/metrics.jsonl`);
      for (let step = 1; step <= 3; step++) {
        let rows: Record<string, unknown>[] = [];
        const deadline = Date.now() + WAIT;
        while (!rows.length && Date.now() < deadline) {
          rows = tail.read();
          if (!rows.length) await new Promise((r) => setTimeout(r, 20));
        }
        deepEqual(rows, [{ step, loss: step / 10 }]);
        equal(c.state(id).state === "COMPLETED", false, "the job must still run while it waits for the ack");
        Deno.writeTextFileSync(`${dir}/ack.${step}`, "");
      }
      equal((await c.waitFor(id, ended, WAIT)).state, "COMPLETED");
    }),
});

Deno.test({
  name: "SlurmClient.adopt() re-attaches to a running job after the client that submitted it is gone",
  ignore,
  fn: () =>
    withClient(async (first, dir) => {
      const run = dir.split("/").at(-1)!;
      const running = await first.submit(
        spec(dir, jobName(run, "adopt", 1), ["sh", "-c", "while [ ! -e go ]; do sleep 0.05; done; exit 4"]),
      );
      const done = await first.submit(spec(dir, jobName("t", "adopt-done", 1), ["true"]));
      await first.waitFor(running, (v) => v.state === "RUNNING", WAIT);
      await first.waitFor(done, ended, WAIT);
      await first.close();

      const second = await SlurmClient.connect({ conf: cluster.conf, pollMs: 100, callTimeoutMs: LOADED_MS });
      try {
        const views = await second.adopt([running, done, "999999"]);
        deepEqual([...views.values()].map((v) => v.state), ["RUNNING", "COMPLETED", "UNKNOWN"]);
        const found = await second.findJobs(jobName(run, "adopt", 1));
        deepEqual(found.map((v) => v.jobId), [running]);
        Deno.writeTextFileSync(`${dir}/go`, "");
        const v = await second.waitFor(running, ended, WAIT);
        deepEqual([v.state, v.exitCode], ["FAILED", 4]);
      } finally {
        await second.close();
      }
    }),
});

Deno.test({
  name: "SlurmClient.submit() turns sbatch's refusal into a SlurmError naming the reason",
  ignore,
  fn: () =>
    withClient(async (c, dir) => {
      await rejects(
        c.submit({ ...spec(dir, jobName("t", "bad", 1), ["true"]), options: { partition: "nosuch" } }),
        (e: unknown) =>
          e instanceof SlurmError && e.kind === "rejected" && /Invalid partition/i.test(e.message),
      );
      await rejects(
        c.submit({ ...spec(dir, jobName("t", "bad", 1), ["true"]), stdout: "relative.txt" }),
        (e: unknown) => e instanceof SlurmError && e.kind === "invalid",
      );
    }),
});

Deno.test({
  name: "SlurmClient.probe() asks the cluster whether options could run, naming what it refuses",
  ignore,
  fn: () =>
    withClient(async (c) => {
      equal(await c.probe({ partition: "gpu", gres: "gpu:1", time: "10" }), null);
      equal(await c.probe({ partition: "nosuch" }), "Invalid partition name specified");
      equal(await c.probe({ gres: "gpu:64" }), "Requested node configuration is not available");
    }),
});

Deno.test({
  name:
    "isStuckPending() flags a job that asks for more time than its partition allows (Slurm keeps it PENDING)",
  ignore,
  fn: () =>
    withClient(async (c, dir) => {
      const part = `arrowshort${Deno.pid}`;
      const scontrol = (...args: string[]) =>
        execBounded("scontrol", args, {
          env: { PATH: `${JOB_ENV.PATH}:/usr/sbin`, SLURM_CONF: cluster.conf! },
          timeoutMs: 5000,
          maxBytes: 4096,
        });
      equal(
        (await scontrol("create", `PartitionName=${part}`, "Nodes=ALL", "MaxTime=1", "State=UP")).code,
        0,
      );
      try {
        const id = await c.submit({
          ...spec(dir, jobName("t", "too-long", 1), ["true"]),
          options: { partition: part, time: "5" },
        });
        // Its first reason can be PartitionConfig (a partition just created); both are hopeless.
        const first = await c.waitFor(id, reasoned, WAIT);
        deepEqual([first.state, isStuckPending(first)], ["PENDING", true], `reason ${first.reason}`);
        const v = await c.waitFor(
          id,
          (x) => x.state !== "PENDING" || x.reason === "PartitionTimeLimit",
          WAIT,
        );
        deepEqual([v.state, isStuckPending(v)], ["PENDING", true]);
      } finally {
        await scontrol("delete", `PartitionName=${part}`);
      }
    }),
});

Deno.test({
  name: "the gpu gres admits one gpu job at a time on the one-node cluster",
  ignore,
  fn: () =>
    withClient(async (c, dir) => {
      const gpu = { gres: "gpu:1" };
      const a = await c.submit({ ...spec(dir, jobName("t", "gpu-a", 1), ["sleep", "300"]), options: gpu });
      const b = await c.submit({ ...spec(dir, jobName("t", "gpu-b", 1), ["true"]), options: gpu });
      try {
        await c.waitFor(a, (v) => v.state === "RUNNING", WAIT);
        const vb = await c.waitFor(b, reasoned, WAIT);
        deepEqual([vb.state, vb.reason], ["PENDING", "Resources"]);
        await c.cancel(a);
        equal((await c.waitFor(b, ended, WAIT)).state, "COMPLETED");
      } finally {
        await c.cancel(a);
        await c.cancel(b);
      }
    }),
});

const BWRAP = ["/usr/bin/bwrap"].find((p) => {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
});

Deno.test({
  name: "a bubblewrap-prefixed argv runs sandboxed as a job, and scancel ends the sandboxed program",
  ignore: ignore || !BWRAP,
  fn: () =>
    withClient(async (c, dir) => {
      Deno.mkdirSync(`${dir}/scope`);
      const box = (cmd: string) => [
        BWRAP!,
        ...[
          "--ro-bind",
          "/",
          "/",
          "--dev",
          "/dev",
          "--proc",
          "/proc",
          "--bind",
          `${dir}/scope`,
          `${dir}/scope`,
        ],
        ...["--unshare-all", "--die-with-parent", "--new-session", "--chdir", `${dir}/scope`, "--"],
        "bash",
        "-c",
        cmd,
      ];
      const write = await c.submit(
        spec(dir, jobName("t", "bwrap", 1), box(`echo in > ok.txt; echo out > ${dir}/escaped.txt || exit 5`)),
      );
      const v = await c.waitFor(write, ended, WAIT);
      deepEqual([v.state, v.exitCode], ["FAILED", 5]);
      equal(Deno.readTextFileSync(`${dir}/scope/ok.txt`), "in\n");
      equal(existsSync(`${dir}/escaped.txt`), false);

      const marker = `arrow-bwrap-sleep-${dir.split("/").at(-1)}`;
      const long = await c.submit(
        spec(dir, jobName("t", "bwrap-cancel", 1), box(`exec -a ${marker} sleep 300`)),
      );
      const deadline = Date.now() + WAIT;
      while (processesNamed(marker) === 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      equal(processesNamed(marker), 1, "the sandboxed program runs");
      await c.cancel(long);
      equal((await c.waitFor(long, ended, WAIT)).state, "CANCELLED");
      const gone = Date.now() + WAIT;
      while (processesNamed(marker) > 0 && Date.now() < gone) await new Promise((r) => setTimeout(r, 20));
      equal(processesNamed(marker), 0, "the sandboxed program must not outlive its job");
    }),
});

function existsSync(p: string): boolean {
  try {
    Deno.statSync(p);
    return true;
  } catch {
    return false;
  }
}

/** Live processes whose argv[0] is `name` (zombies excluded). */
function processesNamed(name: string): number {
  let n = 0;
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const argv0 = Deno.readTextFileSync(`/proc/${e.name}/cmdline`).split("\0")[0];
      if (argv0 === name && !/\) Z /.test(Deno.readTextFileSync(`/proc/${e.name}/stat`))) n++;
    } catch {
      // gone
    }
  }
  return n;
}
