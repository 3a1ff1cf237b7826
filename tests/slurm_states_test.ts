/**
 * How the engine handles every way Slurm can end a job without a claim — TIMEOUT, PREEMPTED, NODE_FAIL,
 * OUT_OF_MEMORY, a job Slurm lost (UNKNOWN), a job that can never leave the queue — driven through the real
 * Slurm backend by a stand-in client that runs each job as a local process and ends it the way a cluster
 * would. Runs everywhere (no cluster needed); the real cluster's own behaviour is in slurm_*_test.ts.
 */
import { deepEqual, equal, match } from "node:assert/strict";
import { parse, stringify } from "yaml";
import { BUILTINS } from "../src/workers/real/registry.ts";
import { prepare } from "../src/engine/prepare.ts";
import { startRun } from "../src/engine/run.ts";
import { loadPlan } from "../src/graph/load.ts";
import type { Plan } from "../src/graph/types.ts";
import type { CrashInfo } from "../src/model/evidence.ts";
import type { Incident } from "../src/model/state.ts";
import { spawn, type Spawned } from "../src/runtime/proc/proc.ts";
import type { SlurmClient } from "../src/runtime/slurm/client.ts";
import type { JobState, JobView, SubmitSpec } from "../src/runtime/slurm/types.ts";
import { PLANS } from "../src/scenarios.gen.ts";
import { lineCount, until } from "./helpers/procs.ts";
import { triple } from "./helpers/real.ts";

interface FakeJob {
  spec: SubmitSpec;
  proc: Spawned | null;
  view: JobView;
  forced: boolean;
}

/** A stand-in for SlurmClient: jobs run at once as local process groups; tests end them as Slurm would. */
class FakeSlurm {
  readonly jobs = new Map<string, FakeJob>();
  /** When set, new jobs stay PENDING with this reason. */
  pending: string | null = null;
  #next = 1000;

  submit(spec: SubmitSpec): Promise<string> {
    const id = String(this.#next++);
    const view = (state: JobState, reason: string): JobView => ({
      jobId: id,
      state,
      slurmState: state,
      exitCode: null,
      signal: null,
      reason,
      source: "squeue",
      seenAt: 0,
    });
    if (this.pending) {
      this.jobs.set(id, { spec, proc: null, view: view("PENDING", this.pending), forced: false });
      return Promise.resolve(id);
    }
    const proc = spawn(spec.argv[0]!, spec.argv.slice(1), {
      cwd: spec.cwd,
      env: spec.env,
      stdin: "null",
      stdout: "null",
      stdoutFile: spec.stdout,
      stderrFile: spec.stderr,
    });
    const job: FakeJob = { spec, proc, view: view("RUNNING", "None"), forced: false };
    this.jobs.set(id, job);
    void proc.status.then((s) => {
      if (job.forced) return;
      const code = s.signal ? null : s.code;
      job.view = { ...job.view, state: code === 0 ? "COMPLETED" : "FAILED", slurmState: "", exitCode: code };
    });
    return Promise.resolve(id);
  }

  /** Ends a job the way the cluster would (its program killed, a final state and reason). */
  async end(id: string, state: JobState, reason: string, signal: number | null): Promise<void> {
    const job = this.jobs.get(id)!;
    job.forced = true;
    if (job.proc) {
      try {
        Deno.kill(-job.proc.pid, "SIGKILL");
      } catch {
        // already gone
      }
      await job.proc.status;
    }
    job.view = { ...job.view, state, slurmState: state, exitCode: null, signal, reason };
  }

  /** The controller forgets a job (its node rebooted, its record is gone): its program dies with it. */
  async lose(id: string): Promise<void> {
    await this.end(id, "UNKNOWN", "", null);
    this.jobs.delete(id);
  }

  state(id: string): JobView {
    return this.jobs.get(id)?.view ?? {
      jobId: id,
      state: "UNKNOWN",
      slurmState: "",
      exitCode: null,
      signal: null,
      reason: "lost",
      source: "none",
      seenAt: 0,
    };
  }

  async cancel(id: string): Promise<void> {
    const job = this.jobs.get(id);
    if (!job || !["PENDING", "RUNNING"].includes(job.view.state)) return;
    await this.end(id, "CANCELLED", "Cancelled", 15);
  }

  refresh(): Promise<void> {
    return Promise.resolve();
  }
  forget(): void {}
  findJobs(): Promise<[]> {
    return Promise.resolve([]);
  }
  close(): Promise<void> {
    return Promise.all([...this.jobs.values()].map((j) => j.proc?.status)).then(() => {});
  }
}

/** The seed plan on the Slurm runtime, N4 slow enough to be ended mid-run. */
function plan(): Plan {
  const doc = parse(PLANS.seed!) as { nodes: { id: string; worker?: { args?: Record<string, unknown> } }[] };
  doc.nodes.find((n) => n.id === "N4")!.worker!.args!.stage_ms = 60;
  const r = loadPlan(stringify(doc), "seed_slow.yaml");
  if (!r.plan) throw new Error(JSON.stringify(r.errors));
  return { ...r.plan, runtime: "slurm" };
}

async function runWith(
  fake: FakeSlurm,
  during: (dir: string) => Promise<void>,
): Promise<{ dir: string; verdict: string | null; incidents: Incident[] }> {
  const dir = await Deno.makeTempDir({ prefix: "arrow-slurm-states-" });
  const run = startRun(prepare(plan(), [], "states", "real"), {
    runDir: dir,
    tickMs: 50,
    maxTicks: 3000,
    builtins: BUILTINS,
    slurm: fake as unknown as SlurmClient,
  });
  await during(dir);
  const state = await run;
  const incidents = Deno.readTextFileSync(`${dir}/incidents.jsonl`).trim().split("\n").filter(Boolean)
    .map((l) => JSON.parse(l));
  return { dir, verdict: state.verdict, incidents };
}

const ENDS: [JobState, string, number | null][] = [
  ["TIMEOUT", "TimeLimit", 15],
  ["PREEMPTED", "Preempted", null],
  ["NODE_FAIL", "NodeFail", null],
  ["OUT_OF_MEMORY", "OutOfMemory", 9],
];

for (const [end, reason, signal] of ENDS) {
  Deno.test(`a job ended ${end} is a crash with its Slurm state, resubmitted from its last checkpoint`, async () => {
    const fake = new FakeSlurm();
    const { dir, verdict, incidents } = await runWith(fake, async (d) => {
      await until(() => lineCount(`${d}/nodes/N4/metrics.jsonl`) >= 20, 120_000, "N4 to train 20 stages", 20);
      await fake.end([...fake.jobs.keys()][0]!, end, reason, signal);
    });
    try {
      deepEqual(incidents.map(triple), [["FALSE_COMPLETION", "N4", "bounce"]]);
      const crash = (incidents[0]!.evidence as { crash: CrashInfo }).crash;
      deepEqual([crash.job_id, crash.state, crash.slurm_state, crash.reason], ["1000", end, end, reason]);
      equal(crash.exit_code, null);
      const second = [...fake.jobs.values()][1]!.spec;
      match(second.env.ARROW_RESUME_FROM ?? "", /\/nodes\/N4\/ckpt\/step_\d+\.json$/);
      equal(second.name.endsWith(".N4.2"), true);
      equal(verdict, "RESEARCH ANSWERED");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("a job Slurm loses (UNKNOWN) is a crash too, handled by the same ladder", async () => {
  const fake = new FakeSlurm();
  const { dir, verdict, incidents } = await runWith(fake, async (d) => {
    await until(() => lineCount(`${d}/nodes/N4/metrics.jsonl`) >= 20, 120_000, "N4 to train 20 stages", 20);
    await fake.lose([...fake.jobs.keys()][0]!);
  });
  try {
    deepEqual(incidents.map(triple), [["FALSE_COMPLETION", "N4", "bounce"]]);
    equal((incidents[0]!.evidence as { crash: CrashInfo }).crash.state, "UNKNOWN");
    equal(verdict, "RESEARCH ANSWERED");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a job that can never leave the queue is reported, not waited for, and fused on the ladder", async () => {
  const fake = new FakeSlurm();
  fake.pending = "PartitionTimeLimit";
  const { dir, incidents } = await runWith(fake, () => Promise.resolve());
  try {
    deepEqual(incidents.filter((i) => i.node === "N4").map(triple), [
      ["FALSE_COMPLETION", "N4", "bounce"],
      ["FALSE_COMPLETION", "N4", "bounce"],
      ["FALSE_COMPLETION", "N4", "fuse"],
    ]);
    const crash = (incidents[0]!.evidence as { crash: CrashInfo }).crash;
    deepEqual([crash.state, crash.reason], ["PENDING", "PartitionTimeLimit"]);
    // Each stuck job was cancelled before the next attempt was submitted.
    deepEqual([...fake.jobs.values()].map((j) => j.view.state), ["CANCELLED", "CANCELLED", "CANCELLED"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
