/**
 * SENSE: what a tick observes of the world. Lock-step workers answer the tick; free-running ones are looked
 * at (their process or job phase); every running node's new metric lines, checkpoints, sandbox escapes,
 * tokens and fired faults are read; an ended attempt is a crash or a claim whose acceptance runs here;
 * scopes are fingerprinted (running ones for progress, idle ones for the guard); the request queue is read.
 * Nothing here decides: the step judges the observations.
 *
 * @module
 */
import type { NodeId, PlanNode } from "../graph/types.ts";
import { DEFAULT_OBSERVE_MS } from "../model/defaults.ts";
import { emptyNodeObs, emptyObservations, type NodeObs, type Observations } from "../model/observe.ts";
import type { RunState } from "../model/state.ts";
import { nodeOf } from "../model/topology.ts";
import { Acceptance } from "./accept/accept.ts";
import type { AuditReader } from "./sandbox/audit.ts";
import type { JobEnd, Proc } from "./backend/backend.ts";
import type { Fingerprinter, ScopePrint } from "./scope/fingerprint.ts";
import { diffTables } from "./scope/scope_record_fold.ts";
import type { GuardSchedule } from "./guard_schedule.ts";
import { shadowPath, shadowWrites, syncLane } from "./sandbox/bwrap.ts";
import {
  IN_STDERR,
  READ_ONLY_MOUNT,
  type RefusalLog,
  refusedPaths,
  type StderrRefusals,
} from "./sandbox/refusals.ts";
import type { Boxes, Command, Shadow } from "./backend/launch.ts";
import type { Lockstep } from "./lockstep.ts";
import { readManifest } from "./scope/manifest.ts";
import {
  bestMetric,
  firedFaults,
  newCheckpoints,
  RequestTail,
  tailLines,
  type UsageTail,
} from "./scope/node_files.ts";
import { stopGroup } from "./proc/proc.ts";
import type { ScopeRecord } from "./scope/scope_record.ts";
import type { PlanFileChange, PlanFiles } from "./scope/plan_files.ts";
import type { StepsTail } from "./proc/steps_tail.ts";
import { type JsonlTail, MAX_LINE, MAX_POINTS, metricPoints, thinPoints } from "./proc/tail.ts";
import type { RunClock } from "./proc/watch.ts";

/** Most bytes of metrics.jsonl read at a long node's exit, beyond the slices read while it ran. */
const EXIT_DRAIN = 256 << 20;

function fileSize(path: string): number {
  try {
    return Deno.lstatSync(path).size;
  } catch {
    return 0;
  }
}

export interface Handle {
  attempt: number;
  /** The attempt's process, local or a Slurm job (backend.ts). */
  proc: Proc;
  lock: Lockstep | null;
  accept: Acceptance;
  metrics: JsonlTail;
  /** Bytes of metrics.jsonl still unread when the attempt exited (the drain's cap was reached). */
  metricsUnread?: number;
  /** Malformed metrics lines this attempt skipped. */
  malformed: number;
  /** Tokens burned since the node was last observed: what a frozen scope is weighed against. */
  burned: number;
  audit: AuditReader | null;
  shadows: Shadow[];
  shadowSeen: Set<string>;
  /** Writes refused under the read-only lanes of its layout, as its stderr names them (null: none). */
  refused: StderrRefusals | null;
  usage: UsageTail;
  /** An agent's own steps (llm/steps.ts), null for every other worker. */
  steps: StepsTail | null;
  faultLog: JsonlTail;
  cmd: Command;
  /** Wall-clock ms the attempt's process started running (null while a job is queued). */
  startedAt: number | null;
  /** Running time since the node was last observed (real path): CPU wait postpones the next observation. */
  watch: RunClock;
}

/** What SENSE reads and where it keeps what it found: the World's own parts. */
export interface SenseContext {
  readonly runDir: string;
  readonly handles: Map<NodeId, Handle>;
  readonly fingerprints: Fingerprinter;
  readonly scopes: ScopeRecord;
  /** Filled with this SENSE's scope scans (what a verification snapshots). */
  readonly scans: Map<NodeId, ScopePrint>;
  /** What programs are boxed with (an acceptance check made at its claim is boxed the same way). */
  readonly box: Boxes;
  readonly ackTimeoutMs: number;
  readonly guard: GuardSchedule;
  /** The plan's evaluator and acceptance files, held to the run's start. */
  readonly planFiles: PlanFiles;
  /** The lanes each node's sandboxes left read-only, for the record. */
  readonly refusals: RefusalLog;
  scope(n: PlanNode): string;
  rel(abs: string): string;
  noteJob(id: NodeId, proc: Proc): void;
}

export class Sensor {
  readonly #w: SenseContext;
  #requests: RequestTail | null = null;
  /** Whether this process has looked at the run yet. */
  #looked = false;

  constructor(w: SenseContext) {
    this.#w = w;
  }

  /**
   * Runs a node's acceptance check. Unconfined (no bubblewrap copy of its scope to write into), its scope is
   * scanned before and after: what the check changed there — it only judges — is the node's write, seen by
   * the fingerprint guard and not stopped.
   */
  async #unconfinedCheck(node: PlanNode, acceptance: Acceptance, broken: boolean, o: NodeObs) {
    const watch = acceptance.cmd.kind !== "builtin" && acceptance.cmd.unconfined && !acceptance.cmd.refuse &&
      !broken;
    const scope = this.#w.scope(node);
    const before = watch ? this.#w.fingerprints.scan(scope) : null;
    const run = await acceptance.run();
    if (before) {
      const after = this.#w.fingerprints.scan(scope);
      const d = diffTables(before.files, after.files, false);
      const seen_in = "the scope before and after the acceptance check";
      for (
        const [op, rels] of [["delete", d.removed.map((i) => before.files.paths[i]!)], [
          "write",
          d.changed.map((j) => after.files.paths[j]!),
        ]] as const
      ) {
        for (const rel of rels) {
          o.escapes.push({ path: this.#w.rel(`${scope}/${rel}`), op, via: "guard", seen_in, stopped: false });
        }
      }
    }
    return run;
  }

  async sense(state: RunState, tick: number): Promise<Observations> {
    const obs = emptyObservations(tick);
    // A first look past tick 0 is a resume's: the last look was taken by an arrow that is gone.
    if (!this.#looked && state.tick > 0) obs.unwatched = true;
    this.#looked = true;
    const real = state.mode !== "mock";
    const now = Date.now();
    const running = state.plan.order.filter((id) => state.nodes[id]!.status === "running");
    const exits = new Map<NodeId, number | null>();
    const signals = new Map<NodeId, string | null>();
    const jobs = new Map<NodeId, JobEnd>();
    /** Jobs not running yet: they hold their slot, but their silence is not observed (not a hang). */
    const queued = new Set<NodeId>();
    await Promise.all(running.map(async (id) => {
      const ns = state.nodes[id]!;
      const o = emptyNodeObs(ns.fp);
      obs.nodes[id] = o;
      const h = this.#w.handles.get(id);
      if (!h) {
        exits.set(id, null);
        return;
      }
      if (h.lock) {
        const ack = await h.lock.tick(tick, ns.inbox, ns.finishing, this.#w.ackTimeoutMs);
        if (ack) {
          o.tokens = ack.tokens;
          o.delivered = ns.inbox.length;
          o.fired = ack.fired;
        }
        if (!ack || ack.done) {
          const st = await this.#exitOf(h);
          exits.set(id, st.code);
          signals.set(id, st.signal);
        }
      } else {
        const look = h.proc.look();
        this.#w.noteJob(id, h.proc);
        if (look.phase === "ended") {
          exits.set(id, look.exit);
          signals.set(id, look.signal);
          if (look.job) jobs.set(id, look.job);
        } else if (look.phase === "queued") queued.add(id);
        else if (h.startedAt === null) {
          // A job started running: its observations and wall time count from now, not from its submission.
          h.startedAt = now;
          h.watch.restart(now);
        }
      }
    }));
    for (const id of running) {
      const node = nodeOf(state.plan, id);
      const o = obs.nodes[id]!;
      const h = this.#w.handles.get(id);
      this.#senseFiles(state, node, o, exits.has(id));
      if (h) {
        const spent = h.usage.tokens();
        o.tokens += spent;
        h.burned += spent;
        o.fired.push(...firedFaults(h.faultLog, state.faults, id));
        if (h.cmd.sandbox === "none") obs.unconfined.push(id);
        if (real && (queued.has(id) || h.startedAt === null) && !exits.has(id)) {
          o.elapsedMs = 0;
          o.observed = false;
        } else if (real) {
          o.elapsedMs = now - (h.startedAt ?? now);
          // Time spent waiting for a CPU is not silence: the observation waits as long as the node did.
          if (exits.has(id)) {
            o.observed = true;
            h.watch.restart(now);
          } else o.observed = h.watch.due(now, node.observe_ms ?? DEFAULT_OBSERVE_MS);
        }
        if (real && o.observed) {
          o.burned = h.burned;
          h.burned = 0;
        }
      }
    }
    // Stream sources' copies take in what their owners wrote since, once the readers' own writes were
    // read — after every node's files, so a checkpoint this tick observed is in every reader's copy.
    for (const id of running) for (const shadow of this.#w.handles.get(id)?.shadows ?? []) syncLane(shadow);
    // Right before any claim is judged: the files that judge it are as the run started, or put back.
    // Unconfined programs running since the last look are who could have changed them.
    const during = (changes: PlanFileChange[], who: NodeId[]) =>
      changes.map((c) => who.length ? { ...c, during: [...who].sort() } : c);
    const planChanges = during(this.#w.planFiles.check(state), obs.unconfined);
    const broken = this.#w.planFiles.broken(state);
    /** Unconfined acceptance checks run this tick: what they leave in the plan's files is theirs. */
    const checkers: NodeId[] = [];
    await Promise.all([...exits].map(async ([id, exit]) => {
      const node = nodeOf(state.plan, id);
      const h = this.#w.handles.get(id);
      const o = obs.nodes[id]!;
      if (exit !== 0) {
        await h?.accept.cancel();
        o.done = {
          exit,
          crash: {
            exit_code: exit,
            signal: signals.get(id) ?? null,
            stderr_tail: tailLines(`${this.#w.runDir}/logs/${id}.err`),
            ...(jobs.has(id) ? jobs.get(id)! : {}),
          },
          accept: null,
          manifest: null,
        };
        return;
      }
      const acceptance = h?.accept ?? Acceptance.prepare(state, node, this.#w.runDir, this.#w.box, false);
      const accept = broken.length && acceptance.cmd.kind !== "builtin"
        ? await acceptance.refuse(
          `${broken.join(", ")} changed since the run started and could not be put back: no claim is ` +
            `judged by an edited file`,
        )
        : await this.#unconfinedCheck(node, acceptance, broken.length > 0, o);
      const ran = acceptance.cmd.kind !== "builtin" && !broken.length && !acceptance.cmd.refuse;
      if (ran && acceptance.cmd.unconfined) checkers.push(id);
      // What the check itself tried to write outside its read-only lane is the node's too: caught in a
      // shadow, or refused by a read-only mount and named by its own stderr.
      for (const shadow of acceptance.cmd.shadows ?? []) {
        for (const { rel, op } of shadowWrites(shadow)) {
          o.escapes.push({
            path: shadowPath(shadow, rel),
            op,
            via: shadow.by ?? "bwrap-shadow",
            stopped: true,
          });
        }
      }
      this.#w.refusals.add(id, state.nodes[id]!.attempt, "acceptance", acceptance.cmd.refusing ?? []);
      for (const p of refusedPaths(accept.stderr, acceptance.cmd.readOnly ?? [], this.#w.scope(node))) {
        const seen_in = "the acceptance check's stderr";
        o.escapes.push({ path: this.#w.rel(p), op: "write", via: READ_ONLY_MOUNT, seen_in, stopped: true });
      }
      const { manifest, error } = readManifest(this.#w.scope(node));
      const observedBest = node.kind === "long"
        ? undefined
        : bestMetric(this.#w.scope(node), state.plan.protocol);
      o.done = {
        exit,
        accept,
        manifest,
        ...(error ? { manifestError: error } : {}),
        ...(observedBest !== undefined ? { observedBest } : {}),
        ...(h?.metricsUnread ? { metricsUnread: h.metricsUnread } : {}),
        ...(h?.malformed ? { malformedLines: h.malformed } : {}),
      };
    }));
    if (checkers.length) planChanges.push(...during(this.#w.planFiles.check(state), checkers));
    if (planChanges.length) obs.planFiles = planChanges;
    this.#w.scans.clear();
    const idle = state.plan.order.filter((id) =>
      state.nodes[id]!.spawned && state.nodes[id]!.status !== "running"
    );
    const scan = new Set([...running, ...this.#w.guard.pick(idle, (id) => nodeOf(state.plan, id).scope)]);
    for (const n of state.plan.nodes) {
      const ns = state.nodes[n.id]!;
      if (!ns.spawned || !scan.has(n.id)) continue;
      const print = this.#w.fingerprints.scan(this.#w.scope(n));
      this.#w.scans.set(n.id, print);
      if (ns.status === "running") {
        obs.nodes[n.id]!.fp = print.fp;
        continue;
      }
      const changed = this.#w.scopes.changed(n, print);
      if (changed.length) {
        obs.guard.push({
          owner: n.id,
          fp: print.fp,
          changed,
          restorable: this.#w.scopes.restorable(n, changed),
        });
      }
    }
    this.#requests ??= new RequestTail(this.#w.runDir, state.requests);
    obs.requests = this.#requests.read();
    return obs;
  }

  async #exitOf(h: Handle): Promise<{ code: number | null; signal: string | null }> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((r) => (timer = setTimeout(() => r("late"), 10_000)));
    const p = h.proc.spawned!;
    const first = await Promise.race([p.status, late]);
    clearTimeout(timer);
    if (first === "late") {
      await stopGroup(p, 500);
      return { code: null, signal: "SIGKILL (no exit after its last answer)" };
    }
    return { code: first.signal ? null : first.code, signal: first.signal ?? null };
  }

  #senseFiles(state: RunState, node: PlanNode, o: NodeObs, exited: boolean): void {
    const h = this.#w.handles.get(node.id);
    const ns = state.nodes[node.id]!;
    if (node.kind === "long" && h) {
      // One slice a tick while it runs; at its exit, everything it wrote (up to EXIT_DRAIN), since the
      // same tick judges its claim against the trajectory.
      const { metric, direction } = state.plan.protocol;
      const from = h.metrics.offset;
      let points: { step: number; value: number }[] = [];
      for (;;) {
        const at = h.metrics.offset;
        const read = metricPoints(h.metrics.read(), metric);
        h.malformed += h.metrics.malformed + read.skipped;
        h.metrics.malformed = 0;
        points = thinPoints(points.concat(read.points), MAX_POINTS, direction);
        if (!exited || h.metrics.offset === at || h.metrics.offset - from >= EXIT_DRAIN) break;
      }
      if (exited) {
        const left = fileSize(h.metrics.path) - h.metrics.offset;
        if (left > MAX_LINE) h.metricsUnread = left;
      }
      o.metrics = points;
      const known = new Set(ns.ckpts.map((c) => c.file));
      o.ckpts = newCheckpoints(this.#w.scope(node), known, points.at(-1)?.step ?? ns.step);
    }
    if (h?.steps) {
      const { steps, end } = h.steps.read();
      if (steps.length) o.steps = steps;
      if (end) o.stepEnd = end;
    }
    if (h?.audit) {
      for (const p of h.audit.escapes()) {
        o.escapes.push({ path: this.#w.rel(p), op: "write", via: "deno-audit", stopped: true });
      }
    }
    for (const p of h?.refused?.read() ?? []) {
      const seen_in = IN_STDERR;
      o.escapes.push({ path: this.#w.rel(p), op: "write", via: READ_ONLY_MOUNT, seen_in, stopped: true });
    }
    for (const shadow of h?.shadows ?? []) {
      for (const { rel, op } of shadowWrites(shadow)) {
        const key = `${shadow.dir}/${rel}:${op}`;
        if (h!.shadowSeen.has(key)) continue;
        h!.shadowSeen.add(key);
        o.escapes.push({
          path: shadowPath(shadow, rel),
          op,
          via: shadow.by ?? "bwrap-shadow",
          stopped: true,
        });
      }
    }
  }
}
