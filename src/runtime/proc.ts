/**
 * Child processes: started detached in their own process group, stopped by signalling the whole group
 * (TERM, a grace period, then KILL), and recorded with their kernel start time so that a later `arrow
 * resume` can find and stop what a dead arrow left behind without ever hitting a recycled pid.
 *
 * @module
 */

export interface Spawned {
  pid: number;
  child: Deno.ChildProcess;
  status: Promise<Deno.CommandStatus>;
  /** Set once the process has exited. */
  exited: Deno.CommandStatus | null;
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
}

/** Kernel start time of a pid from /proc, or null when the process is gone. */
export function procStartTime(pid: number): string | null {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return rest[19] ?? null;
  } catch {
    return null;
  }
}

/** True when the pid is alive and (if given) still the process that started at `startTime`. */
export function isAlive(pid: number, startTime?: string | null): boolean {
  const st = procStartTime(pid);
  if (st === null) return false;
  const state = Deno.readTextFileSync(`/proc/${pid}/stat`);
  if (/\) Z /.test(state)) return false;
  return startTime ? st === startTime : true;
}

async function pump(stream: ReadableStream<Uint8Array>, path: string): Promise<void> {
  const f = await Deno.open(path, { write: true, create: true, append: true });
  await stream.pipeTo(f.writable).catch(() => {});
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
  const pumps: Promise<void>[] = [];
  if (opts.stderrFile) pumps.push(pump(child.stderr, opts.stderrFile));
  if (opts.stdoutFile) pumps.push(pump(child.stdout, opts.stdoutFile));
  const rec: Spawned = {
    pid: child.pid,
    child,
    status: Promise.resolve(null as unknown as Deno.CommandStatus),
    exited: null,
    startTime: procStartTime(child.pid),
  };
  rec.status = child.status.then(async (s) => {
    await Promise.all(pumps);
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

/** Stops a spawned process and its whole group: TERM, up to `graceMs`, then KILL. */
export async function stopGroup(p: Spawned, graceMs = 2000): Promise<void> {
  if (p.exited) {
    signalGroup(p.pid, "SIGKILL");
    return;
  }
  signalGroup(p.pid, "SIGTERM");
  let timer: ReturnType<typeof setTimeout> | undefined;
  const graceOver = new Promise<"grace">((r) => (timer = setTimeout(() => r("grace"), graceMs)));
  const first = await Promise.race([p.status.then(() => "exited" as const), graceOver]);
  clearTimeout(timer);
  signalGroup(p.pid, "SIGKILL");
  if (first === "grace") await p.status;
}

/** Stops a recorded group from an earlier arrow process (no handle, only pid and start time). */
export async function stopRecorded(pid: number, startTime: string | null, graceMs = 2000): Promise<boolean> {
  if (!isAlive(pid, startTime)) {
    signalGroup(pid, "SIGKILL");
    return false;
  }
  signalGroup(pid, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (isAlive(pid, startTime) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
  }
  signalGroup(pid, "SIGKILL");
  return true;
}
