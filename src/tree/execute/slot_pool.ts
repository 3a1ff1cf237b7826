/**
 * Long-lived harness processes ("slots") for local tree runs: each is src/tree/execute/harness/harness.ts in `serve`
 * mode under the same two layers as a one-shot child (Deno permissions, and bubblewrap when installed), and
 * runs one job at a time — an executor's cross-validation, a recomputation, or a prediction for the merge
 * gate — instead of a process (and its module loading) per job. Untrusted code never runs in a slot's own
 * isolate: every fit of it gets a fresh worker that is ended after it (harness.ts), so a slot carries
 * nothing from one hypothesis to the next that an artifact could use. Only steps the library wrote (Arrow's
 * own templates, checked by content hash) run in the slot's isolate, like the encoders.
 *
 * Roles keep the lanes apart. An `execute` slot may write under nodes/ (an executor's scope) and read the
 * dev data; a `recompute` slot reads the same and writes only its progress file; a `predict` slot alone
 * sees the gate's artifact copies and the held-out / test features (never a label: those stay in Arrow).
 * Each job is still judged on its own: its hang clock (metrics lines of an executor, progress lines
 * otherwise, postponed by time it waited for a CPU), its wall budget, and the permission checks its run
 * added to the slot's audit log, compared with what that job alone was granted (its scope, not every
 * scope the slot can see). A slot that hangs, runs over, is aborted or dies is killed as a group and
 * replaced by a fresh one for the next job.
 *
 * @module
 */
import {
  HangClock,
  JsonlTail,
  overrun,
  spawn,
  type Spawned,
  stopGroup,
  watchLoop,
} from "../../runtime/proc/mod.ts";
import type { ProcJournal } from "../../runtime/proc/mod.ts";
import {
  auditRows,
  type ChildOutcome,
  refusedEscapes,
  shadowEscapes,
  stderrRefusals,
  tail,
} from "./child.ts";
import {
  type ChildCommand,
  childCommand,
  type ChildMode,
  type SandboxContext,
  serverCommand,
} from "./sandbox.ts";

/** Most stdout a job may print (predictions of every held-out row fit easily). */
const MAX_STDOUT = 64 << 20;
const dec = new TextDecoder();
const enc = new TextEncoder();

interface Slot {
  readonly role: ChildMode;
  readonly label: string;
  readonly p: Spawned;
  readonly cmd: ChildCommand;
  readonly stdin: WritableStreamDefaultWriter<Uint8Array>;
  readonly progress: string;
  readonly stderrFile: string;
  /** stdout since the current job began. */
  out: string;
  /** Called when stdout grows or the process ends. */
  poke: () => void;
  dead: boolean;
  /** Writes in its shadows already blamed on an earlier job (each job answers for what it added). */
  shadowSeen: Set<string>;
}

export interface SlotJob {
  mode: ChildMode;
  node: string;
  /** The artifact's directory: an executor's scope under nodes/, or the gate's copy. */
  scope: string;
  /** The gate's features file (predict). */
  features?: string;
  label: string;
  observeMs: number;
  /** The job's wall budget. */
  wallMs: number;
  signal?: AbortSignal;
}

export class SlotPool {
  readonly #idle = new Map<ChildMode, Slot[]>();
  readonly #all = new Set<Slot>();
  #n = 0;
  #closed = false;
  /** Slots started (a measure of reuse: one per role and executor when nothing hangs). */
  started = 0;

  constructor(
    readonly ctx: SandboxContext,
    readonly journal: ProcJournal,
    readonly logDir: string,
  ) {}

  /** Starts `count` idle slots of each role ahead of the first job, so no cycle waits on a start-up. */
  warm(counts: Partial<Record<ChildMode, number>>): void {
    for (const [role, n] of Object.entries(counts) as [ChildMode, number][]) {
      for (let i = 0; i < n; i++) this.#park(this.#start(role));
    }
  }

  /** Runs one job on an idle slot of its role (started if there is none) and watches it like a child. */
  async run(job: SlotJob): Promise<ChildOutcome> {
    if (this.#closed) throw new Error("the slot pool is closed");
    const slot = this.#idle.get(job.mode)?.pop() ?? this.#start(job.mode);
    // The grants this job alone has (no sandbox of its own is laid out for it: it runs in the slot's).
    const check = {
      ...childCommand(
        { ...this.ctx, bwrap: null },
        job.mode,
        job.node,
        job.scope,
        slot.cmd.audit,
        job.features,
      ),
      cwd: slot.cmd.cwd,
    };
    // What an earlier job (or the slot's start) left in the shadows is not this job's.
    shadowEscapes(slot.cmd.shadows ?? [], slot.shadowSeen);
    const audit = new JsonlTail(slot.cmd.audit);
    audit.skipToEnd();
    const errFrom = size(slot.stderrFile);
    // What the slot's stderr says a read-only mount refused from here on is this job's.
    const refused = stderrRefusals(slot.cmd, slot.stderrFile);
    const watched = new JsonlTail(job.mode === "execute" ? `${job.scope}/metrics.jsonl` : slot.progress);
    if (job.mode !== "execute") watched.skipToEnd();
    const t0 = performance.now();
    const clock = new HangClock(watched, slot.p.pid, t0);
    const nonce = crypto.randomUUID();
    const endMark = `${nonce} end `;
    slot.out = "";
    const args = [job.mode, this.ctx.taskFile, this.ctx.devFile, job.scope, job.node];
    if (job.features) args.push(job.features);
    const line = JSON.stringify({ args, nonce, progress: job.mode === "execute" ? null : slot.progress });
    await slot.stdin.write(enc.encode(line + "\n")).catch(() => {});
    const ended = () => slot.out.includes(endMark) || slot.dead;
    const { hung, overBudget } = await watchLoop(job.observeMs, {
      async wait(ms) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await new Promise<void>((r) => {
          slot.poke = r;
          timer = setTimeout(r, ms);
        });
        clearTimeout(timer);
      },
      ended,
      check(now) {
        const hung = clock.look(now, job.observeMs);
        return { hung, overBudget: hung ? null : overrun(now, t0, job.wallMs) };
      },
      abort: () => !!job.signal?.aborted,
      stop: () => this.#kill(slot),
    });
    const lines = clock.finish();
    const at = slot.out.indexOf(endMark);
    let exit: number | null = null, signal: string | null = null;
    if (at >= 0 && !slot.dead) {
      const rest = slot.out.slice(at + endMark.length);
      exit = Number(/^\{"exit":(-?\d+)\}/.exec(rest)?.[1] ?? 1);
    } else {
      const status = slot.p.exited ?? await slot.p.status;
      exit = status.signal ? null : status.code;
      signal = status.signal ?? null;
    }
    const stdout = at >= 0 ? slot.out.slice(0, at) : slot.out;
    slot.out = "";
    const escapes = [
      ...auditRows(audit.read(), check, "deno"),
      ...shadowEscapes(slot.cmd.shadows ?? [], slot.shadowSeen),
      ...refusedEscapes(refused),
    ];
    if (!slot.dead) this.#park(slot);
    return {
      exit,
      signal,
      stdout,
      stderrTail: tail(slot.stderrFile, 8, errFrom),
      hung,
      overBudget,
      escapes,
      refusing: slot.cmd.refusing ?? [],
      lines,
      wallMs: performance.now() - t0,
      activeMs: performance.now() - t0,
      cancelled: false,
      nonce,
    };
  }

  /** Ends every slot: idle ones are told (their stdin closes) and given a moment, then killed with the rest. */
  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#all];
    for (const s of all) await s.stdin.close().catch(() => {});
    await Promise.all(all.map((s) => this.#kill(s, 1000)));
  }

  #park(slot: Slot): void {
    if (slot.dead) return;
    const list = this.#idle.get(slot.role) ?? [];
    list.push(slot);
    this.#idle.set(slot.role, list);
  }

  #start(role: ChildMode): Slot {
    const label = `slot-${role}-${++this.#n}`;
    const dir = `${this.ctx.runDir}/.arrow/slots`;
    Deno.mkdirSync(dir, { recursive: true });
    Deno.mkdirSync(this.logDir, { recursive: true });
    const audit = `${dir}/${label}.audit.jsonl`;
    // Where childCommand puts a job's progress file beside its audit log: the name each job is checked with.
    const progress = audit.replace(/(\.jsonl)?$/, ".progress.jsonl");
    for (const f of [audit, progress]) Deno.writeTextFileSync(f, "");
    const stderrFile = `${this.logDir}/${label}.err`;
    Deno.writeTextFileSync(stderrFile, "");
    const cmd = serverCommand(this.ctx, role, audit, progress);
    const p = spawn(cmd.cmd, cmd.args, {
      cwd: cmd.cwd,
      env: cmd.env,
      stdin: "piped",
      stdout: "piped",
      stderrFile,
    });
    this.journal.log("start", label, p);
    this.started += 1;
    const slot: Slot = {
      role,
      label,
      p,
      cmd,
      stdin: p.child.stdin.getWriter(),
      progress,
      stderrFile,
      out: "",
      poke: () => {},
      dead: false,
      shadowSeen: new Set(),
    };
    this.#all.add(slot);
    void this.#pump(slot);
    p.status.then(() => {
      slot.dead = true;
      slot.poke();
    });
    return slot;
  }

  async #pump(slot: Slot): Promise<void> {
    try {
      for await (const chunk of slot.p.child.stdout) {
        if (slot.out.length < MAX_STDOUT) slot.out += dec.decode(chunk, { stream: true });
        slot.poke();
      }
    } catch {
      // the slot was killed
    }
  }

  async #kill(slot: Slot, graceMs = 500): Promise<void> {
    slot.dead = true;
    const list = this.#idle.get(slot.role);
    if (list?.includes(slot)) list.splice(list.indexOf(slot), 1);
    this.#all.delete(slot);
    await stopGroup(slot.p, graceMs);
    this.journal.log("stop", slot.label, slot.p);
  }
}

function size(path: string): number {
  try {
    return Deno.statSync(path).size;
  } catch {
    return 0;
  }
}
