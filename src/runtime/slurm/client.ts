/**
 * The Slurm client the engine's second runtime backend uses: submit a node's argv as a batch job, read its
 * state from the poller's cache (synchronous, never a scheduler call), cancel it, and re-attach to jobs an
 * earlier arrow process submitted. Every tool call has a time limit and bounded output.
 *
 * @module
 */
import { execBounded, type ExecResult } from "./exec.ts";
import { parseSqueue, SQUEUE_FORMAT } from "./parse.ts";
import { lost, Poller, type PollHealth } from "./poller.ts";
import { batchScript, checkDirs, checkSpec, sbatchArgs, sbatchEnv } from "./script.ts";
import {
  isFinal,
  type JobId,
  type JobView,
  SlurmError,
  type SlurmOptions,
  type SubmitSpec,
} from "./types.ts";

export interface SlurmClientOptions {
  /** slurm.conf of the cluster; default $SLURM_CONF, else the tools' own default. */
  conf?: string | null;
  /** Where to look for sbatch, squeue, scontrol, scancel, sacct; default $PATH plus /usr/sbin. */
  path?: string;
  /** Pause between polls, ms (default 1000). */
  pollMs?: number;
  /** Time limit of one squeue/scontrol/scancel call, ms (default 5000). */
  callTimeoutMs?: number;
  /** Time limit of one sbatch call, ms (default 20000). */
  submitTimeoutMs?: number;
  /** Job completion file to read ended jobs from; default: discovered from `scontrol show config`. */
  jobcomp?: string | null;
  /** Ask sacct about forgotten jobs; default: when the cluster has accounting storage. */
  sacct?: boolean;
  /** Tool calls at once (more wait their turn; each call's time limit starts when it starts); default 4. */
  maxCalls?: number;
}

const TOOLS = ["sbatch", "squeue", "scontrol", "scancel", "sacct"] as const;
const OUTPUT_MAX = 8 * 1024 * 1024;

function findTool(name: string, path: string): string | null {
  for (const dir of path.split(":")) {
    if (!dir) continue;
    try {
      const st = Deno.statSync(`${dir}/${name}`);
      if (st.isFile && ((st.mode ?? 0o111) & 0o111)) return `${dir}/${name}`;
    } catch {
      // not here
    }
  }
  return null;
}

/** `Key = value` lines of `scontrol show config`. */
export function parseConfig(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split("\n")) {
    const m = line.match(/^(\w+)\s*=\s*(.*)$/);
    if (m) out.set(m[1]!, m[2]!.trim());
  }
  return out;
}

export class SlurmClient {
  readonly conf: string | null;
  readonly jobcomp: string | null;
  #tools: Record<string, string>;
  #env: Record<string, string>;
  #o: Required<Pick<SlurmClientOptions, "pollMs" | "callTimeoutMs" | "submitTimeoutMs">>;
  #poller: Poller;
  #maxCalls: number;
  #active = 0;
  #waiting: (() => void)[] = [];

  private constructor(
    tools: Record<string, string>,
    conf: string | null,
    o: SlurmClientOptions,
    cfg: Map<string, string>,
  ) {
    this.#tools = tools;
    this.conf = conf;
    this.#o = {
      pollMs: o.pollMs ?? 1000,
      callTimeoutMs: o.callTimeoutMs ?? 5000,
      submitTimeoutMs: o.submitTimeoutMs ?? 20_000,
    };
    this.#maxCalls = Math.max(1, o.maxCalls ?? 4);
    this.#env = { PATH: o.path ?? "/usr/bin:/bin", LC_ALL: "C", ...(conf ? { SLURM_CONF: conf } : {}) };
    const fileComp = cfg.get("JobCompType") === "jobcomp/filetxt" ? cfg.get("JobCompLoc") ?? null : null;
    this.jobcomp = o.jobcomp !== undefined ? o.jobcomp : fileComp;
    const accounting =
      (cfg.get("AccountingStorageType") ?? "accounting_storage/none") !== "accounting_storage/none";
    this.#poller = new Poller({
      run: (tool, args, x) => this.run(tool, args, x),
      jobcomp: this.jobcomp,
      sacct: (o.sacct ?? accounting) && Boolean(tools.sacct),
      pollMs: this.#o.pollMs,
    });
    this.#poller.start();
  }

  /**
   * Finds the tools, reads the cluster's configuration (one bounded `scontrol show config`) and starts the
   * poller. Throws SlurmError("unavailable") when the tools are missing or the controller does not answer.
   */
  static async connect(o: SlurmClientOptions = {}): Promise<SlurmClient> {
    const path = o.path ?? `${Deno.env.get("PATH") ?? "/usr/bin:/bin"}:/usr/sbin:/usr/bin`;
    const tools: Record<string, string> = {};
    for (const t of TOOLS) {
      const p = findTool(t, path);
      if (p) tools[t] = p;
      else if (t !== "sacct") {
        throw new SlurmError(`Cannot use Slurm: "${t}" is not on the PATH`, "unavailable");
      }
    }
    const conf = o.conf !== undefined ? o.conf : Deno.env.get("SLURM_CONF") ?? null;
    const env = { PATH: path, LC_ALL: "C", ...(conf ? { SLURM_CONF: conf } : {}) };
    const r = await execBounded(tools.scontrol!, ["show", "config"], {
      env,
      timeoutMs: o.callTimeoutMs ?? 5000,
      maxBytes: 1024 * 1024,
    });
    if (r.code !== 0) {
      const why = r.timedOut
        ? `no answer within ${Math.round(r.ms)} ms`
        : r.stderr.slice(0, 300) || `exit ${r.code}`;
      throw new SlurmError(
        `Cannot use Slurm: the controller does not answer (${why})`,
        "unavailable",
        r.stderr,
      );
    }
    return new SlurmClient(tools, conf, { ...o, path }, parseConfig(r.stdout));
  }

  /** Runs one tool with this client's environment, time limit and output bound. */
  run(
    tool: string,
    args: string[],
    x: { stdin?: string; timeoutMs?: number; env?: Record<string, string> } = {},
  ) {
    const cmd = this.#tools[tool];
    if (!cmd) {
      const r: ExecResult = {
        code: null,
        stdout: "",
        stderr: `${tool} not found`,
        timedOut: false,
        truncated: false,
        ms: 0,
      };
      return Promise.resolve(r);
    }
    return this.#turn(() =>
      execBounded(cmd, args, {
        env: x.env ?? this.#env,
        timeoutMs: x.timeoutMs ?? this.#o.callTimeoutMs,
        maxBytes: OUTPUT_MAX,
        ...(x.stdin !== undefined ? { stdin: x.stdin } : {}),
      })
    );
  }

  /** Bounds the tool calls in flight: hundreds of sbatch at once would starve each other past their limits. */
  async #turn<T>(fn: () => Promise<T>): Promise<T> {
    // A finishing call hands its slot straight to the next waiter, so a newcomer cannot slip in between.
    if (this.#active >= this.#maxCalls) await new Promise<void>((r) => this.#waiting.push(r));
    else this.#active++;
    try {
      return await fn();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#active--;
    }
  }

  /**
   * Submits a job and starts watching it. The returned id must be persisted by the caller before anything
   * else depends on it. When sbatch times out the job may exist all the same: it is looked up by name, and
   * only if that finds nothing does submit throw SlurmError("timeout") — the caller can look again later
   * with `findJobs(name)` before submitting twice.
   */
  async submit(spec: SubmitSpec): Promise<JobId> {
    checkSpec(spec);
    checkDirs(spec);
    const script = batchScript(spec);
    if (spec.scriptCopy) {
      await Deno.mkdir(spec.scriptCopy.slice(0, spec.scriptCopy.lastIndexOf("/")) || "/", {
        recursive: true,
      });
      await Deno.writeTextFile(spec.scriptCopy, script);
    }
    const r = await this.run("sbatch", sbatchArgs(spec), {
      stdin: script,
      timeoutMs: this.#o.submitTimeoutMs,
      env: { ...sbatchEnv(spec, this.conf) },
    });
    let id: JobId | undefined;
    if (r.timedOut) {
      const found = (await this.findJobs(spec.name)).filter((v) => v.name === spec.name);
      if (found.length !== 1) {
        throw new SlurmError(
          `Cannot submit "${spec.name}": sbatch gave no answer within ${
            Math.round(r.ms)
          } ms and no such job is known`,
          "timeout",
        );
      }
      id = found[0]!.jobId;
    } else if (r.code !== 0) {
      const why = r.stderr.split("\n").filter(Boolean).slice(-2).join("; ").slice(0, 400) || `exit ${r.code}`;
      throw new SlurmError(
        `Cannot submit "${spec.name}": ${why}`,
        r.code === null ? "unavailable" : "rejected",
        r.stderr,
      );
    } else {
      id = r.stdout.trim().split("\n").at(-1)?.split(";")[0]?.trim();
      if (!id || !/^\d+(_\d+)?$/.test(id)) {
        throw new SlurmError(
          `Cannot submit "${spec.name}": sbatch printed no job id ("${r.stdout.slice(0, 80)}")`,
          "failed",
        );
      }
    }
    if (!this.#poller.views.has(id)) {
      this.#poller.set({
        jobId: id,
        state: "PENDING",
        slurmState: "PENDING",
        exitCode: null,
        signal: null,
        reason: "Submitted",
        source: "submit",
        seenAt: Date.now(),
      });
    }
    return id;
  }

  /**
   * Asks the cluster whether a job with these options could run (`sbatch --test-only`, nothing is
   * submitted): null when it could, else Slurm's reason ("Invalid partition name specified", …) — for
   * `arrow validate` against a live cluster, after `checkSlurmOptions` has checked the syntax.
   */
  async probe(options: SlurmOptions): Promise<string | null> {
    const args = sbatchArgs({
      name: "arrow.probe",
      argv: ["true"],
      env: {},
      cwd: "/",
      stdout: "/dev/null",
      stderr: "/dev/null",
      options,
    })
      .filter((a) => a !== "--parsable");
    const r = await this.run("sbatch", ["--test-only", ...args, "--wrap=true"]);
    if (r.timedOut) {
      throw new SlurmError("Cannot check Slurm options: sbatch gave no answer in time", "timeout");
    }
    if (r.code === 0) return null;
    const lines = r.stderr.split("\n").map((l) =>
      l.replace(/^(sbatch: error: |allocation failure: )/, "").trim()
    );
    return lines.filter(Boolean).at(-1)?.slice(0, 300) ?? `sbatch exit ${r.code}`;
  }

  /** The cached view of a job: synchronous, no scheduler call. A job never submitted or adopted is UNKNOWN. */
  state(jobId: JobId): JobView {
    return this.#poller.views.get(jobId) ??
      { ...lost(jobId, 0), reason: `job ${jobId} was never submitted or adopted by this client` };
  }

  /**
   * Cancels a job (Slurm sends TERM, then KILL after the cluster's KillWait). Cancelling a job that has
   * already ended is not an error. Throws SlurmError when scancel fails or gives no answer in time.
   */
  async cancel(jobId: JobId, signal?: "TERM" | "INT" | "USR1" | "USR2" | "KILL"): Promise<void> {
    if (!/^\d+(_\d+)?$/.test(jobId)) {
      throw new SlurmError(`Cannot cancel job "${jobId}": not a job id`, "invalid");
    }
    const args = signal ? ["--full", `--signal=${signal}`, jobId] : [jobId];
    const r = await this.run("scancel", args);
    const gone = /already completing or completed|Invalid job id/i.test(r.stderr);
    if (r.timedOut) {
      throw new SlurmError(`Cannot cancel job ${jobId}: scancel gave no answer in time`, "timeout");
    }
    if (r.code !== 0 && !gone) {
      throw new SlurmError(
        `Cannot cancel job ${jobId}: ${r.stderr.slice(0, 300) || `exit ${r.code}`}`,
        "failed",
      );
    }
    const v = this.#poller.views.get(jobId);
    if (!v || !isFinal(v.state)) this.#poller.watched.add(jobId);
    void this.#poller.refresh();
  }

  /**
   * Re-attaches to jobs recorded by an earlier arrow process: watches them and polls once (reading the job
   * completion file from its start for jobs Slurm has forgotten). Each view says whether the job still runs
   * (PENDING/RUNNING: keep watching it), how it ended, or UNKNOWN (lost: treat as ended without a result).
   */
  async adopt(jobIds: readonly JobId[]): Promise<Map<JobId, JobView>> {
    for (const id of jobIds) {
      if (!/^\d+(_\d+)?$/.test(id)) throw new SlurmError(`Cannot adopt job "${id}": not a job id`, "invalid");
      const v = this.#poller.views.get(id);
      if (!v || !isFinal(v.state)) this.#poller.watched.add(id);
    }
    await this.#poller.refresh();
    return new Map(jobIds.map((id) => [id, this.state(id)]));
  }

  /**
   * Jobs of this user whose name starts with `prefix` (one squeue call): finds jobs submitted by a process
   * that died before it recorded their ids. Jobs Slurm has already forgotten are not listed.
   */
  async findJobs(prefix: string): Promise<(JobView & { name: string })[]> {
    const r = await this.run("squeue", ["--noheader", "--states=all", "--me", `--Format=${SQUEUE_FORMAT}`]);
    if (r.timedOut) throw new SlurmError("Cannot list jobs: squeue gave no answer in time", "timeout");
    if (r.code !== 0) {
      throw new SlurmError(
        `Cannot list jobs: ${r.stderr.slice(0, 300) || `squeue exit ${r.code}`}`,
        "failed",
      );
    }
    return [...parseSqueue(r.stdout, Date.now()).values()].filter((v) => v.name.startsWith(prefix));
  }

  /** Stops polling a job and drops its view (after the engine has recorded how it ended). */
  forget(jobId: JobId): void {
    this.#poller.views.delete(jobId);
    this.#poller.watched.delete(jobId);
  }

  /** Calls `fn` whenever a job's state, Slurm state or reason changes. Returns the unsubscribe. */
  onChange(fn: (v: JobView) => void): () => void {
    return this.#poller.onChange(fn);
  }

  /** One poll now (after any in progress); for tests, benchmarks and a final look before persisting. */
  refresh(): Promise<void> {
    return this.#poller.refresh();
  }

  /** Resolves with the job's view once `until` holds for it; rejects with SlurmError("timeout") after `ms`. */
  waitFor(jobId: JobId, until: (v: JobView) => boolean, ms: number): Promise<JobView> {
    return new Promise((resolve, reject) => {
      const now = this.state(jobId);
      if (until(now)) return resolve(now);
      const off = this.onChange((v) => {
        if (v.jobId !== jobId || !until(v)) return;
        off();
        clearTimeout(timer);
        resolve(v);
      });
      const timer = setTimeout(() => {
        off();
        const v = this.state(jobId);
        reject(new SlurmError(`Job ${jobId} is still ${v.state} (${v.reason}) after ${ms} ms`, "timeout"));
      }, ms);
    });
  }

  health(): PollHealth {
    return this.#poller.health();
  }

  /** Stops the poller. Jobs keep running: they belong to the run, not to this process. */
  close(): Promise<void> {
    return this.#poller.close();
  }
}
