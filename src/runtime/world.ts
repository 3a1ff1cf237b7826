/**
 * The world a run touches: worker processes, scope files, checkpoints, metrics, sandbox logs and side
 * channels. SENSE (runtime/sense.ts) reads it into observations; the step's actions are carried out here; the scope record kept
 * each tick is what reverts foreign writes and what a resumed run restores.
 *
 * @module
 */
import type { NodeId, PlanNode } from "../graph/types.ts";
import type { Action } from "../model/actions.ts";
import type { Event } from "../model/events.ts";
import { canonical } from "../model/json.ts";
import type { RunState } from "../model/state.ts";
import { nodeOf } from "../model/topology.ts";
import type { Observations } from "../model/observe.ts";
import { Acceptance } from "./accept/accept.ts";
import { AuditReader, inside } from "./sandbox/audit.ts";
import { RefusalLog, refusedWrites, type StderrRefusals } from "./sandbox/refusals.ts";
import { type JobNote, placeOf, type Proc } from "./backend/backend.ts";
import { LocalBackend } from "./backend/local.ts";
import { type Attached, metricsResumeOffset } from "./backend/reattach.ts";
import type { SlurmBackend } from "./backend/slurm.ts";
import { RunClock } from "./proc/watch.ts";
import { Fingerprinter, type ScopePrint } from "./scope/fingerprint.ts";
import { type BuiltinWorker, type Command, scopeDir, standbyKey, workerCommand } from "./backend/launch.ts";
import type { Boxes } from "./backend/box.ts";
import { Lockstep } from "./lockstep.ts";
import { Standbys } from "./standbys.ts";
import { UsageTail } from "./scope/node_files.ts";
import { ProcJournal } from "./proc/proc_journal.ts";
import { moveContentsAside, moveLaterCkpts } from "./scope/scope_files.ts";
import { GuardSchedule } from "./guard_schedule.ts";
import { ScopeRecord } from "./scope/scope_record.ts";
import { PlanFiles } from "./scope/plan_files.ts";
import { type Handle, Sensor } from "./sense.ts";
import { JsonlTail } from "./proc/tail.ts";
import { StepsTail } from "./proc/steps_tail.ts";
import { stepsPath } from "../llm/steps.ts";

export interface WorldOptions {
  runDir: string;
  builtins?: Record<string, BuiltinWorker>;
  bwrap?: string | null;
  /** Run command workers without any sandbox layer (the user said --unsandboxed). */
  unsandboxed?: boolean;
  /** Unconfined, how to watch a program in a mount namespace of its own (null: it cannot be made here). */
  watch?: Boxes["watch"];
  /** The directory holding other runs (hidden from sandboxed programs). */
  runsDir?: string | null;
  ackTimeoutMs?: number;
  /** The Slurm backend when the run's runtime is slurm (long free-running nodes run as its jobs). */
  slurm?: SlurmBackend | null;
}

export class World {
  readonly runDir: string;
  readonly handles = new Map<NodeId, Handle>();
  readonly fingerprints = new Fingerprinter();
  /** Every scope's recorded content: the guard's reference, the revert source, the resume target. */
  readonly scopes: ScopeRecord;
  readonly procs: ProcJournal;
  readonly local: LocalBackend;
  /** Set once, before the first start, when the run's runtime is slurm and it has nodes to submit. */
  slurm: SlurmBackend | null;
  /** Lock-step worker processes started ahead of admission, waiting for their config. */
  readonly standbys = new Standbys();
  /** Scope scans made by the last SENSE: what a verification snapshots (never a later, raced read). */
  readonly scans = new Map<NodeId, ScopePrint>();
  /** The lanes each node's sandboxes left read-only, noted on the node (see refusals.notes). */
  readonly refusals = new RefusalLog((abs) => this.rel(abs));
  #builtins: Record<string, BuiltinWorker>;
  /** bubblewrap, or unconfined (--unsandboxed without it) the mount namespace that watches programs. */
  #box: Boxes & { unsandboxed: boolean };
  #runsDir: string | null;
  #dirs = new Set<string>();
  #guard: GuardSchedule;
  #sensor: Sensor;
  /** The latest job of each node run as a job, until the state has recorded it (see jobNotes). */
  #jobs = new Map<NodeId, JobNote>();

  constructor(opts: WorldOptions) {
    this.runDir = opts.runDir;
    this.#builtins = opts.builtins ?? {};
    // Only programs that run unconfined are watched by a namespace: under bubblewrap it is never used.
    const [bwrap, unsandboxed] = [opts.bwrap ?? null, opts.unsandboxed ?? false];
    this.#box = { bwrap, unsandboxed, watch: !bwrap && unsandboxed ? opts.watch ?? null : null };
    this.#runsDir = opts.runsDir ?? null;
    for (
      const d of ["nodes", "logs/audit", ".arrow/prev", ".arrow/shadow", ".arrow/usage", ".arrow/faults"]
    ) {
      Deno.mkdirSync(`${this.runDir}/${d}`, { recursive: true });
    }
    this.scopes = new ScopeRecord(this.runDir, this.fingerprints, (n) => this.scope(n));
    this.#guard = new GuardSchedule(`${this.runDir}/nodes`);
    this.procs = new ProcJournal(this.runDir);
    this.local = new LocalBackend(this.procs);
    this.slurm = opts.slurm ?? null;
    const scopeOf = (n: PlanNode) => this.scope(n);
    const rel = (abs: string) => this.rel(abs);
    const noteJob = (id: NodeId, proc: Proc) => this.#noteJob(id, proc);
    // Unconfined, no copy shows a write into the plan's directory: the whole of it is watched instead.
    const unconfined = !bwrap && unsandboxed;
    this.#sensor = new Sensor({
      runDir: this.runDir,
      handles: this.handles,
      fingerprints: this.fingerprints,
      scopes: this.scopes,
      scans: this.scans,
      box: this.#box,
      ackTimeoutMs: opts.ackTimeoutMs ?? 60_000,
      guard: this.#guard,
      planFiles: PlanFiles.forRun(this.runDir, this.scopes.blobs, unconfined, this.#runsDir),
      refusals: this.refusals,
      scope: scopeOf,
      rel,
      noteJob,
    });
  }

  scope(n: PlanNode): string {
    return scopeDir(this.runDir, n);
  }

  /** Run-relative path for evidence. */
  rel(abs: string): string {
    return inside(abs, this.runDir) ? abs.slice(this.runDir.length + 1) : abs;
  }

  // ---- SENSE ---------------------------------------------------------------------------------------

  /** Reads the world into the tick's observations (runtime/sense.ts). */
  sense(state: RunState, tick: number): Promise<Observations> {
    return this.#sensor.sense(state, tick);
  }

  // ---- ACTIONS ---------------------------------------------------------------------------------------

  /** Carries out a tick's actions on the state the step produced: stops first, then reverts, snapshots, starts. */
  async execute(state: RunState, actions: readonly Action[]): Promise<void> {
    const order = { stop: 0, revert: 1, snapshot: 2, start: 3 } as const;
    const sorted = [...actions].sort((a, b) => order[a.a] - order[b.a]);
    await Promise.all(sorted.filter((a) => a.a === "stop").map((a) => this.stop(a.node)));
    for (const a of sorted) {
      if (a.a === "revert") this.scopes.revert(nodeOf(state.plan, a.node), a.paths);
      else if (a.a === "snapshot") this.scopes.snapshot(nodeOf(state.plan, a.node), this.scans.get(a.node));
      else if (a.a === "start") this.start(state, a.node, a.attempt, a.fresh, a.resume, 0);
    }
  }

  async stop(id: NodeId): Promise<void> {
    const h = this.handles.get(id);
    if (!h) return;
    this.handles.delete(id);
    await h.lock?.close();
    await Promise.all([h.proc.stop(), h.accept.cancel()]);
    this.#noteJob(id, h.proc);
  }

  /** Remembers a job's latest identity and state for the node's state (see jobNotes). */
  #noteJob(id: NodeId, proc: Proc): void {
    const job = proc.job();
    if (job) this.#jobs.set(id, job);
  }

  /**
   * Note events recording each node's latest job (id, attempt, state) where the state does not show it yet:
   * what the dashboard and the report show per node. Only nodes run as jobs ever get one.
   */
  jobNotes(state: RunState): Event[] {
    const out: Event[] = [];
    for (const [id, job] of this.#jobs) {
      const had = state.nodes[id]?.job;
      if (!had || had.id !== job.id || had.attempt !== job.attempt || had.state !== job.state) {
        out.push({ e: "note", node: id, set: { job } });
      }
      if (!this.handles.has(id)) this.#jobs.delete(id);
    }
    return out;
  }

  /** Starts a node's worker. `catchup` > 0 fast-forwards a lock-step worker after a resume. */
  start(
    state: RunState,
    id: NodeId,
    attempt: number,
    fresh: boolean,
    resume: string | null,
    catchup: number,
  ): void {
    const node = nodeOf(state.plan, id);
    const scope = this.scope(node);
    const prev = `${this.runDir}/.arrow/prev/${id}.${attempt - 1}`;
    if (fresh && catchup === 0) moveContentsAside(scope, prev);
    if (resume && catchup === 0) {
      moveLaterCkpts(
        scope,
        state.nodes[id]!.ckpts.find((c) => c.file === resume)?.step ?? Infinity,
        `${prev}/ckpt`,
      );
    }
    this.#ensureDir(scope);
    const cmd = this.#command(state, node, { attempt, resume, catchup });
    if (!cmd) return;
    for (const s of cmd.shadows) Deno.mkdirSync(s.dir, { recursive: true });
    const accept = Acceptance.prepare(state, node, this.runDir, this.#box, true);
    const standby = this.standbys.take(id);
    // Tails start before the process does, so nothing it writes first can be skipped.
    const metrics = new JsonlTail(`${scope}/metrics.jsonl`);
    if (!fresh || catchup > 0) metrics.skipToEnd();
    const refused = refusedWrites(this.refusals, this.runDir, node, attempt, cmd);
    let proc: Proc;
    let lock: Lockstep | null = null;
    let audit = cmd.audit;
    if (standby && cmd.lockstep && standby.key === standbyKey(cmd)) {
      ({ proc, lock, audit } = standby);
    } else {
      if (standby) void this.standbys.drop(standby);
      const logs = { stdout: `${this.runDir}/logs/${id}.out`, stderr: `${this.runDir}/logs/${id}.err` };
      try {
        proc = placeOf(state.plan.runtime, node, cmd) === "slurm" && this.slurm
          ? this.slurm.start({ node, attempt, cmd, ...logs, metricsAt: metrics.offset })
          : this.local.start({ node, attempt, cmd, ...logs, metricsAt: metrics.offset });
      } catch (e) {
        this.#cannotStart(id, e as Error);
        void accept.cancel();
        return;
      }
      if (cmd.lockstep) lock = new Lockstep(proc.spawned!);
    }
    // Canonical JSON: a worker's output may depend on its config's bytes (its code_sha does), and a state
    // rebuilt from replay.jsonl has sorted keys where the original had the plan's order.
    if (lock && cmd.config) lock.sendLine(canonical({ config: cmd.config }));
    this.#handle(node, attempt, cmd, proc, lock, accept, metrics, audit, catchup > 0, refused);
  }

  /** Registers a started (or re-attached) attempt; a queued job counts as running only once it runs. */
  #handle(
    node: PlanNode,
    attempt: number,
    cmd: Command,
    proc: Proc,
    lock: Lockstep | null,
    accept: Acceptance,
    metrics: JsonlTail,
    audit: string | null,
    caughtUp: boolean,
    refused: StderrRefusals | null,
  ): void {
    const id = node.id;
    const scope = this.scope(node);
    const usage = new UsageTail(`${this.runDir}/.arrow/usage/${id}.jsonl`);
    const faultLog = new JsonlTail(`${this.runDir}/.arrow/faults/${id}.${attempt}.jsonl`);
    const steps = node.worker?.type === "agent" ? new StepsTail(stepsPath(this.runDir, id, attempt)) : null;
    if (caughtUp) usage.skipToEnd();
    const now = Date.now();
    this.#noteJob(id, proc);
    this.handles.set(id, {
      attempt,
      proc,
      lock,
      accept,
      metrics,
      audit: audit ? new AuditReader(audit, [scope, cmd.config?.faultLog ?? scope], scope) : null,
      shadows: cmd.shadows,
      shadowSeen: new Set(),
      refused,
      usage,
      steps,
      burned: 0,
      malformed: 0,
      faultLog,
      cmd,
      startedAt: proc.backend === "local" ? now : null,
      watch: new RunClock(proc.spawned?.pid ?? null, now),
    });
  }

  /** The worker command of `node`'s attempt, or null when it cannot start (recorded as such). */
  #command(
    state: RunState,
    node: PlanNode,
    at: { attempt: number; resume: string | null; catchup: number },
  ): Command | null {
    try {
      return this.#workerCommand(state, node, at);
    } catch (e) {
      this.#cannotStart(node.id, e as Error);
      return null;
    }
  }

  /** The worker command of `node`'s attempt under this world's sandbox settings; throws when there is none. */
  #workerCommand(
    state: RunState,
    node: PlanNode,
    at: { attempt: number; resume: string | null; catchup: number },
  ): Command {
    const ctx = {
      runDir: this.runDir,
      state,
      node,
      ...at,
      ...this.#box,
      runsDir: this.#runsDir,
    };
    return workerCommand(ctx, this.#builtins);
  }

  /**
   * Gives a resumed run back the handle of a job that outlived the arrow that submitted it: nothing is
   * started, the scope is left as the job keeps writing it, and metrics.jsonl is tailed from where the
   * state's record of this attempt ends.
   */
  attach(state: RunState, id: NodeId, job: Attached): void {
    const node = nodeOf(state.plan, id);
    const ns = state.nodes[id]!;
    const scope = this.scope(node);
    this.#ensureDir(scope);
    // The same command the job was submitted with (its shadows, sandbox layer and token are per attempt).
    const cmd = this.#command(state, node, { attempt: ns.attempt, resume: ns.from, catchup: 0 });
    if (!cmd) return;
    const metrics = new JsonlTail(`${scope}/metrics.jsonl`);
    metrics.offset = metricsResumeOffset(
      metrics.path,
      job.metricsAt,
      ns.from === null,
      ns.value === null ? null : { step: ns.step, value: ns.value },
      state.plan.protocol.metric,
    );
    const accept = Acceptance.prepare(state, node, this.runDir, this.#box, true);
    const refused = refusedWrites(this.refusals, this.runDir, node, ns.attempt, cmd);
    this.#handle(node, ns.attempt, cmd, job.proc, null, accept, metrics, job.audit, true, refused);
  }

  /** A worker that cannot even start is a crash of its attempt: a process that exits at once says why. */
  #cannotStart(id: NodeId, e: Error): void {
    Deno.writeTextFileSync(`${this.runDir}/logs/${id}.err`, `arrow: cannot start worker: ${e.message}\n`, {
      append: true,
    });
  }

  /** mkdir costs ~1 ms on these disks even for a directory that exists; scopes are never removed. */
  #ensureDir(dir: string): void {
    if (this.#dirs.has(dir)) return;
    Deno.mkdirSync(dir, { recursive: true });
    this.#dirs.add(dir);
  }

  /**
   * Starts lock-step worker processes ahead for nodes about to become ready, so admission does not wait for
   * process start-up (standbys.ts).
   */
  prewarm(state: RunState, ready: (id: NodeId) => boolean, max = 6): void {
    this.standbys.fill(state, ready, {
      running: (id) => this.handles.has(id),
      command: (st, n, ns) => {
        try {
          return this.#workerCommand(st, n, { attempt: ns.attempt + 1, resume: null, catchup: 0 });
        } catch {
          return null;
        }
      },
      spawn: (n, cmd) => {
        this.#ensureDir(this.scope(n));
        const log = `${this.runDir}/logs/${n.id}`;
        return this.local.spawn(n.id, cmd, `${log}.err`, `${log}.out`);
      },
    }, max);
  }

  /**
   * Restarts a node that was running when arrow died. A lock-step worker starts again from the checkpoint
   * its attempt began with and fast-forwards through the ticks it had already served (writing nothing: its
   * scope was restored byte for byte), so the run continues exactly as if uninterrupted. A free-running
   * worker restarts from its last checkpoint.
   */
  resumeNode(state: RunState, id: NodeId): void {
    const ns = state.nodes[id]!;
    const node = nodeOf(state.plan, id);
    let lockstep = true;
    try {
      lockstep = this.#workerCommand(state, node, { attempt: ns.attempt, resume: null, catchup: 0 }).lockstep;
    } catch {
      lockstep = false;
    }
    if (lockstep) {
      this.start(state, id, ns.attempt, false, ns.from, Math.max(0, state.tick - ns.started));
    } else {
      this.start(state, id, ns.attempt, false, ns.ckpts.at(-1)?.file ?? ns.from, 0);
    }
  }

  /** Stops every worker (a Slurm job is cancelled) and releases the backends. */
  async shutdown(): Promise<void> {
    this.#guard.close();
    await Promise.all([...[...this.handles.keys()].map((id) => this.stop(id)), this.standbys.close()]);
    await Promise.all([this.local.close(), this.slurm?.close()]);
  }
}
