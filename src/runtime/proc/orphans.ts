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

const KEY = new TextEncoder().encode("ARROW_TOKEN=");
const SLURM_JOB = new TextEncoder().encode("SLURM_JOB_ID=");

/** The value of `key` (`NAME=` bytes) in the environment a process started with, or null. */
function envValue(pid: number, key: Uint8Array): string | null {
  let env: Uint8Array;
  try {
    env = Deno.readFileSync(`/proc/${pid}/environ`);
  } catch {
    return null;
  }
  for (let at = 0; at < env.length;) {
    let end = env.indexOf(0, at);
    if (end < 0) end = env.length;
    if (end - at >= key.length && key.every((b, i) => env[at + i] === b)) {
      return new TextDecoder().decode(env.subarray(at + key.length, end));
    }
    at = end + 1;
  }
  return null;
}

/** The ARROW_TOKEN a process started with, or null (none, gone, or not ours to read). */
export function tokenOf(pid: number): string | null {
  return envValue(pid, KEY);
}

/**
 * True for a process of a Slurm job (a cluster whose node is this machine runs the job here): the cluster
 * owns it, and a resume re-attaches to the job or cancels it — never kills its processes behind its back.
 */
function inSlurmJob(pid: number): boolean {
  return envValue(pid, SLURM_JOB) !== null;
}

/** Pids of live processes (other than this one) whose initial environment holds a token `wanted` accepts. */
export function processesWithToken(wanted: (token: string) => boolean): number[] {
  const out: number[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync("/proc")];
  } catch {
    return [];
  }
  for (const d of entries) {
    if (!/^\d+$/.test(d.name) || Number(d.name) === Deno.pid) continue;
    const token = tokenOf(Number(d.name));
    if (token !== null && wanted(token)) out.push(Number(d.name));
  }
  return out;
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
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync("/proc")];
  } catch {
    return [];
  }
  for (const d of entries) {
    if (!/^\d+$/.test(d.name)) continue;
    const pid = Number(d.name);
    if (pid === Deno.pid) continue;
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
 * one of the run's attempt tokens, then every stranded one (above); returns their pids.
 */
export function sweepLeftovers(runDir: string, since: bigint | null): Promise<number[]> {
  const prefix = `${runDir}#`;
  const killed = new Set(killAll((t) => t.startsWith(prefix), (pid) => !inSlurmJob(pid)));
  if (since !== null) {
    for (let round = 0; round < 4; round++) {
      const pids = stranded(runDir, since).filter((p) => !killed.has(p) && !inSlurmJob(p));
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
  }
  return Promise.resolve([...killed]);
}

function killAll(
  wanted: (token: string) => boolean,
  killable: (pid: number) => boolean = () => true,
): number[] {
  const killed = new Set<number>();
  for (let round = 0; round < 4; round++) {
    const pids = processesWithToken(wanted).filter((p) => !killed.has(p) && killable(p));
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
  return [...killed];
}
