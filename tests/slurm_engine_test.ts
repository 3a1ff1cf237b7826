/**
 * The Slurm runtime end to end on a real one-node cluster: the real-path seed scenarios with their long
 * nodes as batch jobs end with the same verdicts and incidents as local runs; a job Slurm ends without a
 * claim is reported with the job's state and handled by the ladder; a refused submission is a crash that
 * says why; and `arrow resume` after a SIGKILL of arrow re-attaches to the running job instead of
 * submitting it again. Ignored, saying why once, where no cluster can start.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { parse, stringify } from "yaml";
import { BUILTINS } from "../src/workers/real/registry.ts";
import { resolveBuiltin } from "../src/cli/catalog.ts";
import { findBwrap } from "../src/cli/sandbox.ts";
import { prepare } from "../src/engine/prepare.ts";
import { startRun } from "../src/engine/run.ts";
import { loadPlan } from "../src/graph/load.ts";
import type { Plan } from "../src/graph/types.ts";
import type { CrashInfo } from "../src/model/evidence.ts";
import { JobJournal, type JobRecord } from "../src/runtime/slurm/journal.ts";
import { PLANS } from "../src/scenarios.gen.ts";
import { arrow, pool, spawnArrow } from "./helpers/cli.ts";
import { lineCount, until } from "./helpers/procs.ts";
import { mockTriples, pythonPlan, type RealRun, realScenario, runReal, triple } from "./helpers/real.ts";
import { cluster } from "./slurm_helper.ts";

const NO_CLUSTER = cluster.conf === null;
// The engine connects to the cluster SLURM_CONF names (the helper may have started its own).
if (cluster.conf) Deno.env.set("SLURM_CONF", cluster.conf);
const BWRAP = await findBwrap();
if (!NO_CLUSTER && !BWRAP) console.log("Slurm + bubblewrap test ignored: bwrap is not installed");
const PATH = `${Deno.env.get("PATH") ?? "/usr/bin:/bin"}:/usr/sbin`;

const onSlurm = (plan: Plan): Plan => ({ ...plan, runtime: "slurm" });
const submissions = (dir: string): JobRecord[] =>
  new JobJournal(dir).records().filter((r) => r.op === "submit");

/** The seed plan with N4 trained slowly enough (stage_ms) to be caught mid-run. */
function slowSeed(stageMs: number): string {
  const doc = parse(PLANS.seed!) as { nodes: { id: string; worker?: { args?: Record<string, unknown> } }[] };
  doc.nodes.find((n) => n.id === "N4")!.worker!.args!.stage_ms = stageMs;
  return stringify(doc);
}

function slowPlan(stageMs: number): Plan {
  const r = loadPlan(slowSeed(stageMs), "slow_seed.yaml");
  if (!r.plan) throw new Error(JSON.stringify(r.errors));
  return r.plan;
}

/** squeue's view of the jobs named exactly `name` (all states Slurm still remembers). */
async function squeue(name: string): Promise<{ id: string; state: string }[]> {
  const out = await new Deno.Command("squeue", {
    args: ["--noheader", "--states=all", `--name=${name}`, "--format=%i|%T"],
    env: { PATH, SLURM_CONF: cluster.conf ?? "" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return new TextDecoder().decode(out.stdout).trim().split("\n").filter(Boolean).map((l) => {
    const [id, state] = l.split("|");
    return { id: id!, state: state! };
  });
}

Deno.test({
  name: "seed scenarios on the real path with --runtime slurm: same verdicts and incidents as local",
  ignore: NO_CLUSTER,
  fn: async (t) => {
    const names = ["green", "hung", "plateau", "trap_scope"];
    // Two at a time: the cluster's one gpu serialises the trainers anyway; queued jobs are not hangs.
    const done = await pool(names, 2, (name) => {
      const { plan, faults } = realScenario(name);
      return runReal(`slurm-${name}`, onSlurm(plan), faults);
    });
    const runs = new Map<string, RealRun>(names.map((n, i) => [n, done[i]!]));
    try {
      for (const name of names) {
        await t.step(`${name}: same verdict and incidents (type, node, rung) as the local path`, () => {
          const r = runs.get(name)!;
          equal(r.state.verdict, resolveBuiltin(name).expect?.verdict);
          deepEqual(r.triples, mockTriples(name));
        });
      }
      await t.step("the trainers ran as Slurm jobs, recorded per node with their final state", () => {
        for (const [name, r] of runs) {
          const subs = submissions(r.dir);
          ok(subs.some((s) => s.node === "N4"), `${name}: N4 was submitted`);
          ok(subs.every((s) => s.node === "N4" || s.node === "N7"), `${name}: only long nodes are jobs`);
          const job = r.state.nodes.N4!.job!;
          equal(job.id, subs.filter((s) => s.node === "N4").at(-1)!.jobId, name);
          ok(["COMPLETED", "CANCELLED"].includes(job.state), `${name}: ${job.state}`);
          deepEqual(new JobJournal(r.dir).open(), [], `${name}: every job ended in the journal`);
          match(Deno.readTextFileSync(`${r.dir}/report/report.md`), /## Slurm jobs\n/);
        }
      });
      await t.step("hung: the restart is a new submission resuming from the step-6 checkpoint", () => {
        const r = runs.get("hung")!;
        deepEqual(submissions(r.dir).map((s) => [s.node, s.attempt]), [["N4", 1], ["N4", 2]]);
        const steps = Deno.readTextFileSync(`${r.dir}/nodes/N4/metrics.jsonl`).trim().split("\n")
          .map((l) => JSON.parse(l).step);
        deepEqual(steps, [...Array.from({ length: 12 }, (_, i) => i), 7, 8, 9, 10, 11]);
        equal(r.state.nodes.N4!.job!.state, "CANCELLED");
      });
      await t.step("plateau: N4 cancelled at its checkpoint, N7 grown and trained as a job", () => {
        const r = runs.get("plateau")!;
        deepEqual(submissions(r.dir).map((s) => s.node), ["N4", "N7"]);
        equal(r.state.nodes.N7!.job!.state, "COMPLETED");
      });
      await t.step(
        "trap_scope: the Deno sandbox inside the job stopped the write and its audit named it",
        () => {
          const ev = runs.get("trap_scope")!.incidents[0]!.evidence as { attempts: { path: string }[] };
          deepEqual(ev.attempts.map((a) => a.path), ["nodes/N3/leaked_by_N4.txt"]);
        },
      );
    } finally {
      for (const r of runs.values()) await Deno.remove(r.dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "a job cancelled behind arrow's back is a crash with its Slurm state, bounced to a new job",
  ignore: NO_CLUSTER,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "arrow-slurm-cancel-" });
    try {
      const run = startRun(prepare(onSlurm(slowPlan(100)), [], "cancelled", "real"), {
        runDir: dir,
        tickMs: 100,
        maxTicks: 2000,
        builtins: BUILTINS,
      });
      let first = "";
      await until(
        () => {
          first = submissions(dir).find((s) => s.node === "N4")?.jobId ?? "";
          return first !== "" && lineCount(`${dir}/nodes/N4/metrics.jsonl`) >= 15;
        },
        120_000,
        "N4's job to train 15 stages",
        50,
      );
      const cancel = await new Deno.Command("scancel", {
        args: [first],
        env: { PATH, SLURM_CONF: cluster.conf! },
      }).output();
      ok(cancel.success, "scancel ran");
      const state = await run;
      const incidents = Deno.readTextFileSync(`${dir}/incidents.jsonl`).trim().split("\n").map((l) =>
        JSON.parse(l)
      );
      deepEqual(incidents.map(triple), [["FALSE_COMPLETION", "N4", "bounce"]]);
      const crash = incidents[0].evidence.crash as CrashInfo;
      deepEqual([crash.job_id, crash.state], [first, "CANCELLED"]);
      equal(typeof crash.reason, "string");
      const subs = submissions(dir).filter((s) => s.node === "N4");
      equal(subs.length, 2, "the bounce resubmitted N4");
      ok(subs[1]!.jobId !== first && subs[1]!.attempt === 2);
      equal(state.verdict, "RESEARCH ANSWERED");
      equal(state.nodes.N4!.job!.id, subs[1]!.jobId);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "a submission Slurm refuses is a crash naming the reason, fused after the lap budget",
  ignore: NO_CLUSTER,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "arrow-slurm-refused-" });
    try {
      const plan = onSlurm(slowPlan(25));
      const bad: Plan = {
        ...plan,
        nodes: plan.nodes.map((n) => n.id === "N4" ? { ...n, slurm: { partition: "no_such_partition" } } : n),
      };
      const state = await startRun(prepare(bad, [], "refused", "real"), {
        runDir: dir,
        tickMs: 50,
        maxTicks: 2000,
        builtins: BUILTINS,
      });
      const incidents = Deno.readTextFileSync(`${dir}/incidents.jsonl`).trim().split("\n").map((l) =>
        JSON.parse(l)
      );
      // (N4e, whose source never produced a checkpoint, is refused in turn: not this test's business.)
      deepEqual(incidents.filter((i) => i.node === "N4").map(triple), [
        ["FALSE_COMPLETION", "N4", "bounce"],
        ["FALSE_COMPLETION", "N4", "bounce"],
        ["FALSE_COMPLETION", "N4", "fuse"],
      ]);
      const crash = incidents[0].evidence.crash as CrashInfo;
      equal(crash.job_id, null);
      match(crash.reason ?? "", /partition/i);
      deepEqual(submissions(dir), [], "nothing was submitted");
      equal(state.nodes.N4!.status, "killed");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "arrow run --runtime slurm refuses a node's options the cluster cannot run, before making a run",
  ignore: NO_CLUSTER,
  fn: async () => {
    const tmp = await Deno.makeTempDir({ prefix: "arrow-slurm-cli-" });
    try {
      const doc = parse(PLANS.seed!) as { nodes: { id: string; slurm?: unknown }[] };
      doc.nodes.find((n) => n.id === "N4")!.slurm = { partition: "no_such_partition" };
      Deno.writeTextFileSync(`${tmp}/plan.yaml`, stringify(doc));
      const r = await arrow([
        "run",
        `${tmp}/plan.yaml`,
        "--real",
        "--runtime",
        "slurm",
        "--runs-dir",
        `${tmp}/runs`,
      ], {
        env: { SLURM_CONF: cluster.conf! },
      });
      equal(r.code, 1, r.stderr);
      match(r.stderr, /Cannot run node "N4" on this cluster .*partition/i);
      const left = (() => {
        try {
          return [...Deno.readDirSync(`${tmp}/runs`)].map((d) => d.name);
        } catch {
          return [];
        }
      })();
      deepEqual(left, [], "no run directory was left");
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});

Deno.test({
  name: "arrow resume after SIGKILL re-attaches to the running job: same id, no second submission",
  ignore: NO_CLUSTER,
  fn: async () => {
    const tmp = await Deno.makeTempDir({ prefix: "arrow-slurm-resume-" });
    try {
      Deno.writeTextFileSync(`${tmp}/plan.yaml`, slowSeed(120));
      const runsDir = `${tmp}/runs`;
      const env = { SLURM_CONF: cluster.conf! };
      const child = spawnArrow(
        ["run", `${tmp}/plan.yaml`, "--real", "--runtime", "slurm", "--runs-dir", runsDir, "--quiet"],
        "null",
        env,
      );
      let dir = "";
      let job = "";
      await until(
        () => {
          if (!dir) {
            try {
              const d = [...Deno.readDirSync(runsDir)].find((e) => e.isDirectory);
              if (d) dir = `${runsDir}/${d.name}`;
            } catch {
              // not made yet
            }
            if (!dir) return false;
          }
          job = submissions(dir).find((s) => s.node === "N4")?.jobId ?? "";
          return job !== "" && lineCount(`${dir}/nodes/N4/metrics.jsonl`) >= 8;
        },
        120_000,
        "N4's job to train 8 stages",
        50,
      );
      child.kill("SIGKILL");
      await child.status;
      const name = submissions(dir).find((s) => s.jobId === job)!.name;
      deepEqual(
        (await squeue(name)).map((j) => [j.id, j.state]),
        [[job, "RUNNING"]],
        "the job outlived arrow",
      );

      const r = await arrow(["resume", dir], { env });
      equal(r.code, 0, r.stderr);
      match(r.stdout, /re-attached to the Slurm jobs of: N4/);
      const restarted = r.stdout.match(/^ {2}restarted: (.*)$/m)?.[1]?.split(", ") ?? [];
      ok(!restarted.includes("N4"), r.stdout);
      match(r.stdout, /^RESEARCH ANSWERED$/m);
      deepEqual(submissions(dir).map((s) => [s.node, s.attempt, s.jobId]), [["N4", 1, job]]);
      deepEqual((await squeue(name)).map((j) => j.id), [job], "one job under the attempt's name");
      const state = JSON.parse(Deno.readTextFileSync(`${dir}/state.json`));
      deepEqual(state.nodes.N4.job, { attempt: 1, id: job, state: "COMPLETED" });
      // Metrics tailing continued where the state's record stopped: every line read exactly once.
      const metricEvents = Deno.readTextFileSync(`${dir}/replay.jsonl`).trim().split("\n")
        .flatMap((l) => JSON.parse(l).events).filter((e: { e: string; node?: string }) =>
          e.e === "metric" && e.node === "N4"
        ).map((e: { step: number }) => e.step);
      deepEqual(metricEvents, Array.from({ length: 61 }, (_, i) => i));
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "Ctrl-C cancels the run's jobs and closes them in the journal; a resume resubmits from the checkpoint",
  ignore: NO_CLUSTER,
  fn: async () => {
    const tmp = await Deno.makeTempDir({ prefix: "arrow-slurm-int-" });
    try {
      Deno.writeTextFileSync(`${tmp}/plan.yaml`, slowSeed(120));
      const runsDir = `${tmp}/runs`;
      const env = { SLURM_CONF: cluster.conf! };
      const child = spawnArrow(
        ["run", `${tmp}/plan.yaml`, "--real", "--runtime", "slurm", "--runs-dir", runsDir, "--quiet"],
        "null",
        env,
      );
      let dir = "";
      await until(
        () => {
          if (!dir) {
            try {
              const d = [...Deno.readDirSync(runsDir)].find((e) => e.isDirectory);
              if (d) dir = `${runsDir}/${d.name}`;
            } catch {
              // not made yet
            }
            if (!dir) return false;
          }
          return submissions(dir).length > 0 && lineCount(`${dir}/nodes/N4/metrics.jsonl`) >= 8;
        },
        120_000,
        "N4's job to train 8 stages",
        50,
      );
      child.kill("SIGINT");
      equal((await child.status).code, 130);
      const first = submissions(dir)[0]!;
      deepEqual(new JobJournal(dir).open(), [], "the cancelled job is closed in the journal");
      deepEqual((await squeue(first.name)).map((j) => [j.id, j.state]), [[first.jobId, "CANCELLED"]]);

      const r = await arrow(["resume", dir], { env });
      equal(r.code, 0, r.stderr);
      match(r.stdout, /restarted: .*\bN4\b/);
      match(r.stdout, /^RESEARCH ANSWERED$/m);
      const again = submissions(dir);
      equal(again.length, 2);
      ok(again[1]!.jobId !== first.jobId && again[1]!.metricsAt! > 0, "a new job, resuming mid-file");
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});

Deno.test({
  name: "a command worker runs under bubblewrap inside its Slurm job, supervised like a local one",
  ignore: NO_CLUSTER || BWRAP === null,
  fn: async () => {
    const r = await runReal("slurm-py-green", onSlurm(pythonPlan()), [], { bwrap: BWRAP });
    try {
      equal(r.state.verdict, "RESEARCH ANSWERED");
      deepEqual(r.triples, []);
      equal(r.state.nodes.N4!.job!.state, "COMPLETED");
      match(Deno.readTextFileSync(`${r.dir}/.arrow/slurm/N4.1.sh`), /^exec \S*bwrap /m);
    } finally {
      await Deno.remove(r.dir, { recursive: true });
    }
  },
});
