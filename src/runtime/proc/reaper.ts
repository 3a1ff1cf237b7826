/**
 * Arrow as the child subreaper of its unconfined workers: without bubblewrap's pid namespace, a daemon that
 * leaves its worker's session and scrubs its environment carries nothing arrow put there, but it cannot
 * scrub its parentage. While unconfined workers run, this process is PR_SET_CHILD_SUBREAPER, so every
 * orphan of a worker re-parents to it instead of to init; a sweep kills (SIGKILL) and reaps (waitpid on
 * that pid only) each adopted orphan once every worker that could have left it has ended.
 *
 * Which worker left an orphan: the one whose session or process group it is still in, or whose
 * ARROW_TOKEN it carries; failing that, every worker running when it was first seen that started before
 * it did (a descendant never starts before its ancestor). An adopted process no worker can account for is
 * left alone: in a process shared with other code (parallel test modules), that is someone else's.
 *
 * The kernel cannot tell an adopted orphan from a child this process started itself: both are children of
 * its first thread. So from the first `enable()` on, every `Deno.Command#spawn` of this isolate is recorded
 * until its exit, and the children present before are remembered by start time; children in this process's
 * own session are never touched (no worker can join it: each leads a session of its own).
 *
 * @module
 */
import { libc } from "./libc.ts";
import { type ProcStat, readStat } from "./proc_stat.ts";
import { tokenOf } from "./orphans.ts";

/** An attempt's process whose orphans this process adopts. */
export interface Worker {
  readonly pid: number;
  /** Kernel start time (clock ticks since boot); null when it could not be read. */
  readonly start: bigint | null;
  readonly token: string | null;
  /** Who holds it (a backend): closing sweeps count every worker their owner ever held. */
  readonly owner: object;
  ended: boolean;
}

interface Orphan {
  start: string;
  /** Workers that may have left it; empty when none can have (not ours). */
  from: Set<Worker>;
}

/** Workers running, or ended and not yet through a sweep. */
const current = new Set<Worker>();
/** Workers that ended, newest last (bounded): what orphans are still traced to by session or group. */
const past: Worker[] = [];
const PAST_CAP = 4096;
const orphans = new Map<number, Orphan>();
/** Children this isolate started itself (pid → kernel start time, null when seen spawning). */
const own = new Map<number, string | null>();
let hooked = false;
let adopting = false;
let everAdopted = false;
let noted = false;
let chain: Promise<unknown> = Promise.resolve();

/** Whether orphans are being adopted now ("on"/"off"), or why they cannot be. */
export function adoption(): "on" | "off" | string {
  const lc = libc();
  if (typeof lc === "string") return lc;
  return adopting ? "on" : "off";
}

/**
 * Turns adoption on ahead of starting an unconfined worker (so not even its quickest orphan escapes to
 * init). False where this process cannot adopt (no FFI permission, no glibc, not Linux), after a one-line
 * note on stderr the first time.
 */
export function enable(): boolean {
  const lc = libc();
  if (typeof lc === "string") {
    if (!noted) {
      noted = true;
      console.error(
        `arrow: note: cannot adopt orphaned worker processes (${lc}); a daemon that drops ARROW_TOKEN ` +
          `may outlive its node`,
      );
    }
    return false;
  }
  install();
  if (!adopting) adopting = lc.setSubreaper(true);
  everAdopted ||= adopting;
  return adopting;
}

/** Registers a started worker: adoption stays on until every held worker has ended. */
export function hold(pid: number, start: string | null, token: string | null, owner: object): Worker {
  const w: Worker = { pid, start: start === null ? null : BigInt(start), token, owner, ended: false };
  current.add(w);
  return w;
}

/** Marks a worker ended (its orphans may now be swept); with none running, adoption turns off. */
export function release(w: Worker | null): void {
  if (w) w.ended = true;
  if ([...current].some((c) => !c.ended) || !adopting) return;
  const lc = libc();
  if (typeof lc !== "string") lc.setSubreaper(false);
  adopting = false;
}

/**
 * Kills and reaps every adopted orphan whose workers have all ended, pass after pass (killing one orphans
 * its own children), until a pass finds none; returns their pids. With `closing`, every worker that owner
 * ever held counts (it is shutting down). Sweeps run one at a time; none waits past `deadlineMs` for the
 * kernel to end what it killed.
 */
export function sweep(closing: object | null = null, deadlineMs = 2000): Promise<number[]> {
  const run = chain.then(() => sweepNow(closing, deadlineMs));
  chain = run.catch(() => {});
  return run;
}

async function sweepNow(closing: object | null, deadlineMs: number): Promise<number[]> {
  // Nothing adopted, nothing to sweep: libc is not even opened (a run of Deno-confined workers never loads it).
  if (!everAdopted) return [];
  const lc = libc();
  if (typeof lc === "string") return [];
  const killed: number[] = [];
  const until = performance.now() + deadlineMs;
  for (let pass = 0; pass < 16; pass++) {
    const doomed = survey(closing, lc.reap);
    if (doomed.length === 0) break;
    for (const { pid, pgrp } of doomed) {
      kill(pid);
      if (![...current].some((w) => !w.ended && w.pid === pgrp)) kill(-pgrp);
      killed.push(pid);
    }
    await reapAll(doomed.map((o) => o.pid), until, lc.reap);
    if (performance.now() >= until) break;
  }
  for (const w of current) {
    if (!w.ended) continue;
    current.delete(w);
    past.push(w);
  }
  if (past.length > PAST_CAP) past.splice(0, past.length - PAST_CAP);
  for (const [pid, o] of orphans) if (readStat(pid)?.start !== o.start) orphans.delete(pid);
  return killed;
}

let nextReap = 0;

/**
 * Collects adopted zombies (kills nothing), at most every 100 ms: called on every look at a running
 * attempt, so that a worker forking short-lived background processes cannot fill the pid table.
 */
export function reapZombies(): void {
  if (!everAdopted) return;
  const lc = libc();
  if (typeof lc === "string" || performance.now() < nextReap) return;
  nextReap = performance.now() + 100;
  const mine = readStat(Deno.pid);
  for (const pid of adopted()) {
    const st = readStat(pid);
    if (st?.state === "Z" && st.session !== mine?.session) lc.reap(pid);
  }
}

/** The adopted orphans due to die now (zombies among them are reaped on the way). */
function survey(closing: object | null, reap: (pid: number) => string): { pid: number; pgrp: number }[] {
  const mine = readStat(Deno.pid);
  const out: { pid: number; pgrp: number }[] = [];
  for (const pid of adopted()) {
    const st = readStat(pid);
    // Workers lead sessions of their own, and nothing joins another session: one in ours is not theirs.
    if (!st || (mine && st.session === mine.session)) continue;
    if (st.state === "Z") {
      reap(pid);
      continue;
    }
    let o = orphans.get(pid);
    if (!o || o.start !== st.start) {
      o = { start: st.start, from: origins(pid, st) };
      orphans.set(pid, o);
    }
    const from = closing ? new Set([...o.from, ...heldBy(closing, pid, st)]) : o.from;
    if (from.size > 0 && [...from].every((w) => w.ended)) out.push({ pid, pgrp: st.pgrp });
  }
  return out;
}

/** The workers that may have left an orphan first seen now. */
function origins(pid: number, st: ProcStat): Set<Worker> {
  const all = [...current, ...past];
  const direct = all.filter((w) => w.pid === st.session || w.pid === st.pgrp);
  if (direct.length > 0) return new Set(direct);
  const token = tokenOf(pid);
  const carried = token === null ? [] : all.filter((w) => w.token === token);
  if (carried.length > 0) return new Set(carried);
  const parent = orphans.get(st.session) ?? orphans.get(st.pgrp);
  if (parent && parent.from.size > 0) return new Set(parent.from);
  return new Set([...current].filter((w) => mayDescend(w, pid, st.start)));
}

function heldBy(owner: object, pid: number, st: ProcStat): Worker[] {
  return [...current, ...past].filter((w) => w.owner === owner && mayDescend(w, pid, st.start));
}

let pidMax: number | null = null;

/**
 * Whether process `pid` (started at clock tick `start`) can descend from worker `w`: it cannot have started
 * before its ancestor. Start times count clock ticks (10 ms), so a process started in the same tick is
 * ordered by pid: the kernel hands pids out in increasing order (wrapping at pid_max), so a descendant's pid
 * follows its ancestor's — one started just before the worker, in the same tick, is not its descendant.
 */
function mayDescend(w: Worker, pid: number, start: string): boolean {
  if (w.start === null) return true;
  pidMax ??= readPidMax();
  return descendsInTime(w.pid, w.start, pid, BigInt(start), pidMax);
}

/** The ordering behind `mayDescend`, pure: start ticks first, pids (modulo `pidMax`) within a tick. */
export function descendsInTime(
  ancestorPid: number,
  ancestorStart: bigint,
  pid: number,
  start: bigint,
  pidMax: number,
): boolean {
  if (start !== ancestorStart) return start > ancestorStart;
  const ahead = (((pid - ancestorPid) % pidMax) + pidMax) % pidMax;
  return ahead > 0 && ahead < pidMax / 2;
}

function readPidMax(): number {
  try {
    const n = Number(Deno.readTextFileSync("/proc/sys/kernel/pid_max").trim());
    return Number.isInteger(n) && n > 1 ? n : 4_194_304;
  } catch {
    return 4_194_304;
  }
}

async function reapAll(pids: number[], until: number, reap: (pid: number) => string): Promise<void> {
  let left = pids;
  for (let wait = 1; left.length > 0; wait = Math.min(wait * 2, 25)) {
    left = left.filter((pid) => reap(pid) === "running");
    if (left.length === 0 || performance.now() >= until) return;
    await new Promise((r) => setTimeout(r, wait));
  }
}

function kill(target: number): void {
  if (target === 0 || target === -1 || target === -Deno.pid || target === Deno.pid) return;
  try {
    Deno.kill(target, "SIGKILL");
  } catch {
    // already gone, or not ours to kill (a setuid program): it is reaped whenever it ends
  }
}

/** Children of this process that it did not start: where the kernel puts the orphans it hands over. */
function adopted(): number[] {
  return children().filter((pid) => {
    if (!own.has(pid)) return true;
    const start = own.get(pid);
    if (start === null || start === undefined || readStat(pid)?.start === start) return false;
    own.delete(pid); // that child is gone and its pid taken again
    return true;
  });
}

/**
 * Children of this process's first thread (a subreaper's orphans go to its first live thread), from
 * /proc/PID/task/PID/children; where the kernel has no such file, every process whose parent we are.
 */
function children(): number[] {
  try {
    return Deno.readTextFileSync(`/proc/${Deno.pid}/task/${Deno.pid}/children`).split(" ")
      .filter((s) => s !== "").map(Number);
  } catch {
    const out: number[] = [];
    try {
      for (const d of Deno.readDirSync("/proc")) {
        if (/^\d+$/.test(d.name) && readStat(Number(d.name))?.ppid === Deno.pid) out.push(Number(d.name));
      }
    } catch {
      // no /proc: nothing to find
    }
    return out;
  }
}

/**
 * From the first `enable()` on, records every child this isolate spawns until its exit, and the children
 * it has already (by start time), so that a sweep never mistakes them for adopted orphans.
 */
function install(): void {
  if (hooked) return;
  hooked = true;
  for (const pid of children()) own.set(pid, readStat(pid)?.start ?? null);
  const proto = Deno.Command.prototype as { spawn(this: Deno.Command): Deno.ChildProcess };
  const spawn = proto.spawn;
  proto.spawn = function (this: Deno.Command): Deno.ChildProcess {
    const child = spawn.call(this);
    own.set(child.pid, null);
    const gone = () => own.delete(child.pid);
    child.status.then(gone, gone);
    return child;
  };
}
