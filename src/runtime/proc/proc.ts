/**
 * Child processes: started detached in their own process group, stopped by signalling the whole group
 * (TERM, a grace period, then KILL), and recorded with their kernel start time so that a later `arrow
 * resume` can find and stop what a dead arrow left behind without ever hitting a recycled pid.
 *
 * @module
 */

import { drain, openLog, type Pump, pump, within } from "./pump.ts";
import { readStat } from "./proc_stat.ts";

export { procStartTime } from "./proc_stat.ts";

/** How long the output pipes may stay open after the process itself exited (held by a leftover). */
export const PUMP_GRACE_MS = 1000;
/** Bound on the clean-up that runs between a process's exit and the wait on its pipes. */
const SETTLE_MS = 5000;
/** Bound on waiting for a SIGKILLed group's leader (a process in uninterruptible sleep ignores it). */
const KILLED_WAIT_MS = 5000;

export interface Spawned {
  pid: number;
  child: Deno.ChildProcess;
  /**
   * The process's own exit status, once its clean-up (`settle`) ran and its output pumps drained —
   * both bounded, so a leftover holding the pipes open delays this by `PUMP_GRACE_MS` at most.
   */
  status: Promise<Deno.CommandStatus>;
  /** Set once `status` has resolved. */
  exited: Deno.CommandStatus | null;
  /** Once exited: whether its logs hold all it wrote (false when a leftover held the pipes past the grace). */
  drained: boolean | null;
  /** The kernel's start time of the process (clock ticks since boot), for pid-reuse checks. */
  startTime: string | null;
}

export interface SpawnOptions {
  cwd?: string;
  env: Record<string, string>;
  stdin: "piped" | "null";
  stdout: "piped" | "null";
  /** File that receives stderr (and stdout when `stdout` is "null" and `stdoutFile` is set). */
  stderrFile?: string;
  stdoutFile?: string;
  /**
   * Runs as soon as the process has exited, before its output pumps are waited on (bounded by
   * `SETTLE_MS`): where what it left behind, which may hold its pipes open, is stopped.
   */
  settle?: () => Promise<unknown> | void;
}

/** True when the pid is alive (not a zombie) and (if given) still the process that started at `startTime`. */
export function isAlive(pid: number, startTime?: string | null): boolean {
  const st = readStat(pid);
  if (st === null || st.state === "Z") return false;
  return startTime ? st.start === startTime : true;
}

export function spawn(cmd: string, args: string[], opts: SpawnOptions): Spawned {
  const child = new Deno.Command(cmd, {
    args,
    cwd: opts.cwd,
    env: { RUST_BACKTRACE: "0", NO_COLOR: "1", ...opts.env },
    clearEnv: true,
    stdin: opts.stdin,
    stdout: opts.stdoutFile ? "piped" : opts.stdout,
    stderr: opts.stderrFile ? "piped" : "null",
    detached: true,
  }).spawn();
  const pumps: Pump[] = [];
  if (opts.stderrFile) pumps.push(pump(child.stderr, openLog(opts.stderrFile)));
  if (opts.stdoutFile) pumps.push(pump(child.stdout, openLog(opts.stdoutFile)));
  const rec: Spawned = {
    pid: child.pid,
    child,
    status: Promise.resolve(null as unknown as Deno.CommandStatus),
    exited: null,
    drained: null,
    startTime: readStat(child.pid)?.start ?? null,
  };
  const settle = opts.settle;
  // The exit is the process's own: a background process that inherited its stdout may keep the pipe open
  // forever, so the pumps get a short grace after the clean-up (which stops such leftovers) and no more.
  rec.status = child.status.then(async (s) => {
    if (settle) await within(Promise.resolve().then(settle), SETTLE_MS);
    rec.drained = await drain(pumps, PUMP_GRACE_MS);
    rec.exited = s;
    return s;
  });
  return rec;
}

/** Signals a process group, ignoring a group that is already gone. */
export function signalGroup(pid: number, sig: Deno.Signal): boolean {
  try {
    Deno.kill(-pid, sig);
    return true;
  } catch {
    return false;
  }
}

/** Stops a spawned process and its whole group: TERM, up to `graceMs`, then KILL; never hangs. */
export async function stopGroup(p: Spawned, graceMs = 2000): Promise<void> {
  if (p.exited) {
    signalGroup(p.pid, "SIGKILL");
    return;
  }
  signalGroup(p.pid, "SIGTERM");
  const exited = await within(p.status, graceMs);
  signalGroup(p.pid, "SIGKILL");
  // Bounded: the status settles within a bounded time of the leader's exit, but a leader stuck in
  // uninterruptible sleep outlives even SIGKILL; arrow does not wait for it forever.
  if (!exited) await within(p.status, KILLED_WAIT_MS);
}

/** Stops a recorded group from an earlier arrow process (no handle, only pid and start time). */
export async function stopRecorded(pid: number, startTime: string | null, graceMs = 2000): Promise<boolean> {
  if (!isAlive(pid, startTime)) {
    // The leader is gone; its group may live on, unless the pid names another process now (a pid is never
    // reused while a group of that id exists, so that group is gone too).
    // A group that still had members (a detached trainer under a dead bwrap leader) was stopped: say so.
    const st = readStat(pid);
    return (!st || st.state === "Z" || !startTime || st.start === startTime) && signalGroup(pid, "SIGKILL");
  }
  signalGroup(pid, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (isAlive(pid, startTime) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
  }
  signalGroup(pid, "SIGKILL");
  return true;
}
