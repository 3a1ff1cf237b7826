/**
 * The Slurm backend: an attempt is a batch job running the same argv, environment and working directory a
 * local run would, on a shared filesystem. Submission runs beside the tick (a slow sbatch never stalls
 * one); the job's id goes to the run's job journal the moment sbatch answers; its state is read from the
 * client's poller cache. Stopping cancels the job and waits until Slurm says it is over, since a job can
 * go on writing for up to KillWait after scancel.
 *
 * @module
 */
import type { PlanNode } from "../../graph/types.ts";
import type { Backend, JobEnd, JobNote, Phase, Proc, StartRequest } from "./backend.ts";
import type { Command } from "./launch.ts";
import { slurmSpec } from "../slurm/backend.ts";
import { SlurmClient, type SlurmClientOptions } from "../slurm/client.ts";
import { JobJournal } from "../slurm/journal.ts";
import { checkSlurmOptions } from "../slurm/options.ts";
import { jobName } from "../slurm/script.ts";
import {
  isFinal,
  isStuckPending,
  type JobId,
  type JobView,
  SlurmError,
  type SlurmOptions,
} from "../slurm/types.ts";

export interface SlurmBackendOptions {
  /** How long a stop waits for a cancelled job to be over (Slurm's KillWait plus the controller's work). */
  stopTimeoutMs?: number;
}

const SIGNALS: Record<number, string> = {
  1: "SIGHUP",
  2: "SIGINT",
  3: "SIGQUIT",
  4: "SIGILL",
  6: "SIGABRT",
  7: "SIGBUS",
  8: "SIGFPE",
  9: "SIGKILL",
  10: "SIGUSR1",
  11: "SIGSEGV",
  12: "SIGUSR2",
  13: "SIGPIPE",
  14: "SIGALRM",
  15: "SIGTERM",
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A node's job options: the plan's `slurm:` block, normalised as validated. The gpu slot a long node holds
 * becomes `--gres=gpu:1` unless the node names its own gres (`none` for a job that needs no GPU) or a
 * partition (sites that give GPUs by partition).
 */
export function jobOptions(node: Pick<PlanNode, "kind" | "slurm">): SlurmOptions {
  const { options } = checkSlurmOptions(node.slurm);
  if (node.kind === "long" && !options.gres && !options.partition) options.gres = "gpu:1";
  return options;
}

/** The evidence of a job's end: id, our state, Slurm's word and reason. */
export function jobEnd(v: Pick<JobView, "jobId" | "state" | "slurmState" | "reason">): JobEnd {
  return { job_id: v.jobId, state: v.state, slurm_state: v.slurmState, reason: v.reason };
}

/** How an ended job's program ended, as a local exit: only COMPLETED counts as exit 0 (a claim). */
export function exitOf(v: JobView): { exit: number | null; signal: string | null } {
  const signal = v.signal === null ? null : SIGNALS[v.signal] ?? `signal ${v.signal}`;
  if (v.state === "COMPLETED") return { exit: v.exitCode ?? 0, signal };
  // Slurm ended it (time limit, preemption, node failure, out of memory, lost): whatever status it left,
  // the program made no claim.
  return { exit: v.exitCode === 0 ? null : v.exitCode, signal };
}

export class SlurmProc implements Proc {
  readonly backend = "slurm" as const;
  readonly spawned = null;
  #b: SlurmBackend;
  #id: JobId | null;
  #refused: string | null = null;
  #timedOut = false;
  #submission: Promise<void> = Promise.resolve();
  #last: JobView | null = null;
  #stopping: Promise<void> | null = null;

  constructor(
    b: SlurmBackend,
    readonly node: string,
    readonly attempt: number,
    readonly name: string,
    readonly stderr: string,
    id: JobId | null,
  ) {
    this.#b = b;
    this.#id = id;
  }

  /** Submits in the background; the id is journalled the moment sbatch answers. */
  submit(run: () => Promise<JobId>, extra: { metricsAt: number; audit: string | null }): this {
    this.#submission = run().then((id) => {
      this.#id = id;
      try {
        this.#b.journal.submitted(this.node, this.attempt, id, this.name, {
          metricsAt: extra.metricsAt,
          ...(extra.audit ? { audit: extra.audit } : {}),
        });
      } catch (e) {
        // The job runs all the same; a resume finds it by its name.
        this.#b.log(this.stderr, `arrow: cannot journal job ${id}: ${(e as Error).message}`);
      }
    }, (e) => {
      this.#timedOut = e instanceof SlurmError && e.kind === "timeout";
      this.#refused = (e as Error).message;
      this.#b.log(this.stderr, `arrow: cannot submit ${this.name}: ${this.#refused}`);
    });
    return this;
  }

  get jobId(): JobId | null {
    return this.#id;
  }

  look(): Phase {
    if (this.#refused !== null) {
      return {
        phase: "ended",
        exit: null,
        signal: null,
        job: { job_id: null, state: "UNKNOWN", slurm_state: "", reason: this.#refused },
      };
    }
    if (this.#id === null) return { phase: "queued", reason: "Submitting" };
    const v = this.#b.client.state(this.#id);
    this.#last = v;
    if (v.state === "PENDING") {
      // A reason that waiting cannot cure (the job asks for more than its partition allows, …): report it
      // now as a start that failed, rather than hold the slot for ever.
      if (isStuckPending(v)) return { phase: "ended", exit: null, signal: null, job: jobEnd(v) };
      return { phase: "queued", reason: v.reason };
    }
    if (v.state === "RUNNING") return { phase: "running" };
    return { phase: "ended", ...exitOf(v), job: jobEnd(v) };
  }

  job(): JobNote | null {
    if (this.#id === null) return null;
    const v = this.#last ?? this.#b.client.state(this.#id);
    return { id: this.#id, attempt: this.attempt, state: v.state };
  }

  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    await this.#submission;
    const c = this.#b.client;
    if (this.#id === null) {
      // sbatch gave no answer in time and no job was found then: one may still appear under our name.
      if (this.#timedOut) await this.#b.cancelByName(this.name);
      return;
    }
    const id = this.#id;
    let v = c.state(id);
    if (!isFinal(v.state)) {
      await this.#cancel(id);
      v = await this.#b.settle(id);
    }
    this.#last = v;
    if (isFinal(v.state)) this.#b.journal.ended(this.node, this.attempt, id, this.name);
    else {
      // Left open in the journal: a resumed run cancels it (its node no longer runs that attempt).
      this.#b.log(this.stderr, `arrow: job ${id} was still ${v.state} (${v.reason}) after scancel`);
    }
    c.forget(id);
  }

  async #cancel(id: JobId): Promise<void> {
    for (let i = 0;; i++) {
      try {
        return await this.#b.client.cancel(id);
      } catch (e) {
        if (i >= 2) {
          return this.#b.log(this.stderr, `arrow: cannot cancel job ${id}: ${(e as Error).message}`);
        }
        await sleep(250 * (i + 1));
      }
    }
  }
}

export class SlurmBackend implements Backend {
  readonly name = "slurm" as const;
  readonly journal: JobJournal;
  readonly runId: string;
  readonly stopTimeoutMs: number;

  constructor(readonly client: SlurmClient, readonly runDir: string, o: SlurmBackendOptions = {}) {
    this.journal = new JobJournal(runDir);
    this.runId = runDir.replace(/\/+$/, "").split("/").at(-1)!;
    this.stopTimeoutMs = o.stopTimeoutMs ?? 60_000;
  }

  start(req: StartRequest): SlurmProc {
    return this.submit(req.node.id, req.attempt, req.cmd, req, jobOptions(req.node), {
      metricsAt: req.metricsAt,
      audit: req.cmd.audit,
    });
  }

  /**
   * Submits any free-running program as a job of this run, under the name `arrow.<run>.<label>.<attempt>`
   * (a node's attempt, or another child such as a tree-mode executor): the same handle, journal and stop as
   * a node's. The submission runs in the background; a refusal ends the handle at once, saying why.
   */
  submit(
    label: string,
    attempt: number,
    cmd: Pick<Command, "cmd" | "args" | "env" | "cwd">,
    files: { stdout: string; stderr: string },
    options: SlurmOptions,
    extra: { metricsAt: number; audit: string | null } = { metricsAt: 0, audit: null },
  ): SlurmProc {
    const name = jobName(this.runId, label, attempt);
    const proc = new SlurmProc(this, label, attempt, name, files.stderr, null);
    let spec;
    try {
      spec = slurmSpec({ ...cmd, lockstep: false }, {
        runDir: this.runDir,
        runId: this.runId,
        node: label,
        attempt,
        options,
      });
    } catch (e) {
      return proc.submit(() => Promise.reject(e), extra);
    }
    const job = { ...spec, stdout: files.stdout, stderr: files.stderr };
    // slurmstepd replaces a TMPDIR that does not exist with /tmp (and says so in the job's stderr): the
    // private one a local run would name is made, so the job sees the same environment.
    const tmp = cmd.env.TMPDIR;
    if (tmp?.startsWith(`${this.runDir}/`)) Deno.mkdirSync(tmp, { recursive: true });
    return proc.submit(() => this.client.submit(job), extra);
  }

  /** A handle on a job an earlier arrow process submitted (the client already watches it). */
  adopt(node: string, attempt: number, jobId: JobId, name: string): SlurmProc {
    return new SlurmProc(this, node, attempt, name, `${this.runDir}/logs/${node}.err`, jobId);
  }

  /** Polls until the job is final or the stop deadline passes; returns the last view. */
  async settle(id: JobId): Promise<JobView> {
    const deadline = performance.now() + this.stopTimeoutMs;
    let pause = 50;
    for (;;) {
      await this.client.refresh();
      const v = this.client.state(id);
      if (isFinal(v.state) || performance.now() >= deadline) return v;
      await sleep(pause);
      pause = Math.min(500, pause * 2);
    }
  }

  /** Cancels every live job of this run with exactly this name (a submission whose answer was lost). */
  async cancelByName(name: string): Promise<void> {
    try {
      for (const v of await this.client.findJobs(name)) {
        if (v.name === name && !isFinal(v.state)) await this.client.cancel(v.jobId);
      }
    } catch (e) {
      this.log(
        `${this.runDir}/logs/arrow-slurm.err`,
        `arrow: cannot look for job ${name}: ${(e as Error).message}`,
      );
    }
  }

  /** One line for the person reading the node's log (bounded; a log that cannot be written is skipped). */
  log(file: string, line: string): void {
    try {
      Deno.writeTextFileSync(file, line.slice(0, 2000) + "\n", { append: true });
    } catch {
      // the log directory is gone (run removed): nothing to tell
    }
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/**
 * Connects to the cluster and asks it whether each distinct set of job options the given nodes use could
 * run there (`sbatch --test-only`: nothing is submitted), so a bad partition, account or gres is reported
 * before the run starts rather than as a job that never runs. Throws SlurmError naming the node.
 */
export async function connectChecked(
  nodes: readonly Pick<PlanNode, "id" | "kind" | "slurm">[],
  o: SlurmClientOptions,
): Promise<SlurmClient> {
  const client = await SlurmClient.connect(o);
  try {
    const seen = new Map<string, string>();
    for (const n of nodes) {
      const options = jobOptions(n);
      const key = JSON.stringify(options);
      if (seen.has(key)) continue;
      seen.set(key, n.id);
      const why = await client.probe(options);
      if (why !== null) {
        throw new SlurmError(`Cannot run node "${n.id}" on this cluster (${key}): ${why}`, "rejected");
      }
    }
    return client;
  } catch (e) {
    await client.close();
    throw e;
  }
}
