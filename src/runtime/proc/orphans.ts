/**
 * Processes that outlive their node, found by the attempt token every worker starts with. A worker's
 * process group is stopped as a whole, and under bubblewrap its pid namespace dies with it; without
 * bubblewrap a double-forked daemon escapes the group. Arrow adopts such daemons as their subreaper
 * (reaper.ts); the token is the second net — it also finds a daemon that left before arrow could adopt it,
 * or that an earlier (killed) arrow left behind — for every daemon that keeps its environment. A daemon a
 * killed arrow left that scrubbed its environment too is found on resume by where it stands (`stranded`).
 *
 * @module
 */
import { readStat } from "./proc_stat.ts";

const TOKEN = "ARROW_TOKEN";
const SLURM_JOB = "SLURM_JOB_ID";

/**
 * The values of `keys` in the environment a process started with (one read of /proc/PID/environ), or null
 * when it cannot be read (gone, or not ours to read). A key it lacks is absent from the result.
 */
function environOf(pid: number, keys: readonly string[]): Map<string, string> | null {
  let env: Uint8Array;
  try {
    env = Deno.readFileSync(`/proc/${pid}/environ`);
  } catch {
    return null;
  }
  const wanted = keys.map((k) => new TextEncoder().encode(`${k}=`));
  const out = new Map<string, string>();
  for (let at = 0; at < env.length && out.size < keys.length;) {
    let end = env.indexOf(0, at);
    if (end < 0) end = env.length;
    for (const [i, key] of wanted.entries()) {
      if (end - at >= key.length && key.every((b, j) => env[at + j] === b)) {
        out.set(keys[i]!, new TextDecoder().decode(env.subarray(at + key.length, end)));
      }
    }
    at = end + 1;
  }
  return out;
}

/** Pids of the processes listed in /proc, this one excluded. */
function procPids(): number[] {
  try {
    return [...Deno.readDirSync("/proc")].filter((d) => /^\d+$/.test(d.name)).map((d) => Number(d.name))
      .filter((pid) => pid !== Deno.pid);
  } catch {
    return [];
  }
}

/** The ARROW_TOKEN a process started with, or null (none, gone, or not ours to read). */
export function tokenOf(pid: number): string | null {
  return environOf(pid, [TOKEN])?.get(TOKEN) ?? null;
}

/**
 * Live processes (other than this one) whose initial environment holds a token `wanted` accepts, each with
 * whether it belongs to a Slurm job (a cluster whose node is this machine runs the job here: the cluster
 * owns it, and a resume re-attaches to the job or cancels it — never kills its processes behind its back).
 */
function tokened(wanted: (token: string) => boolean): { pid: number; slurm: boolean }[] {
  const out: { pid: number; slurm: boolean }[] = [];
  for (const pid of procPids()) {
    const env = environOf(pid, [TOKEN, SLURM_JOB]);
    const token = env?.get(TOKEN);
    if (token !== undefined && wanted(token)) out.push({ pid, slurm: env!.has(SLURM_JOB) });
  }
  return out;
}

/** Pids of live processes (other than this one) whose initial environment holds a token `wanted` accepts. */
export function processesWithToken(wanted: (token: string) => boolean): number[] {
  return tokened(wanted).map((p) => p.pid);
}

/**
 * Kills every process still carrying one of `tokens`, looking again while new ones turn up (one may fork
 * while it is being found), a few rounds at most; returns their pids.
 */
export function sweepOrphans(tokens: string | ReadonlySet<string>): Promise<number[]> {
  const set = typeof tokens === "string" ? new Set([tokens]) : tokens;
  return Promise.resolve(set.size === 0 ? [] : killAll((t) => set.has(t)));
}

/**
 * Kills every process carrying the token of any attempt of the run in `runDir` (launch.ts names them
 * `<runDir>#<node>#<attempt>`): what an arrow killed with -9 left of that run, for its resume to clear.
 */
export function sweepRun(runDir: string): Promise<number[]> {
  const prefix = `${runDir}#`;
  return Promise.resolve(killAll((t) => t.startsWith(prefix)));
}

/**
 * Pids of processes a killed run left that carry no token: working directory inside the run's scopes or
 * its private area, no controlling terminal (a person's shell in a scope has one; a daemon that left its
 * session has none), started no earlier than the run's first worker (`since`, kernel clock ticks, from the
 * process journal). Only a resume calls it, before it starts anything, under the run lock.
 */
export function stranded(runDir: string, since: bigint): number[] {
  let real = runDir;
  try {
    real = Deno.realPathSync(runDir);
  } catch {
    // gone: nothing of it to stand in
  }
  const roots = [`${real}/nodes/`, `${real}/.arrow/`];
  const out: number[] = [];
  for (const pid of procPids()) {
    let cwd: string;
    try {
      cwd = Deno.readLinkSync(`/proc/${pid}/cwd`);
    } catch {
      continue;
    }
    if (!roots.some((r) => `${cwd}/`.startsWith(r))) continue;
    const st = readStat(pid);
    if (!st || st.state === "Z" || BigInt(st.start) < since || ttyOf(pid) !== 0) continue;
    out.push(pid);
  }
  return out;
}

/** The controlling terminal of a process (0: none), from field 7 of /proc/PID/stat; -1 when unreadable. */
function ttyOf(pid: number): number {
  try {
    const text = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return Number(text.slice(text.lastIndexOf(")") + 2).split(" ")[4] ?? -1);
  } catch {
    return -1;
  }
}

/**
 * What a resume clears of a killed arrow's run besides its journaled process groups: every process with
 * one of the run's attempt tokens, then every stranded one (above), sparing Slurm jobs' processes; returns
 * their pids.
 */
export function sweepLeftovers(runDir: string, since: bigint | null): Promise<number[]> {
  const prefix = `${runDir}#`;
  const killed = killRounds(() =>
    tokened((t) => t.startsWith(prefix)).filter((p) => !p.slurm).map((p) => p.pid)
  );
  if (since !== null) {
    const spared = (pid: number) => environOf(pid, [SLURM_JOB])?.has(SLURM_JOB) ?? false;
    killRounds(() => stranded(runDir, since).filter((p) => !spared(p)), killed);
  }
  return Promise.resolve([...killed]);
}

function killAll(wanted: (token: string) => boolean): number[] {
  return [...killRounds(() => processesWithToken(wanted))];
}

/**
 * Kills what `find` names, looking again while new ones turn up (one may fork while it is being found), a
 * few rounds at most; adds their pids to `killed` (never killed twice) and returns it.
 */
function killRounds(find: () => number[], killed = new Set<number>()): Set<number> {
  for (let round = 0; round < 4; round++) {
    const pids = find().filter((p) => !killed.has(p));
    if (pids.length === 0) break;
    for (const pid of pids) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
      killed.add(pid);
    }
  }
  return killed;
}
