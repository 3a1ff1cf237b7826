/**
 * Processes that outlive their node, found by the attempt token every worker starts with. A worker's
 * process group is stopped as a whole, and under bubblewrap its pid namespace dies with it; without
 * bubblewrap a double-forked daemon escapes the group. Arrow adopts such daemons as their subreaper
 * (reaper.ts); the token is the second net — it also finds a daemon that left before arrow could adopt it,
 * or that an earlier (killed) arrow left behind — for every daemon that keeps its environment.
 *
 * @module
 */

const KEY = new TextEncoder().encode("ARROW_TOKEN=");

/** The ARROW_TOKEN a process started with, or null (none, gone, or not ours to read). */
export function tokenOf(pid: number): string | null {
  let env: Uint8Array;
  try {
    env = Deno.readFileSync(`/proc/${pid}/environ`);
  } catch {
    return null;
  }
  for (let at = 0; at < env.length;) {
    let end = env.indexOf(0, at);
    if (end < 0) end = env.length;
    if (end - at >= KEY.length && KEY.every((b, i) => env[at + i] === b)) {
      return new TextDecoder().decode(env.subarray(at + KEY.length, end));
    }
    at = end + 1;
  }
  return null;
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

function killAll(wanted: (token: string) => boolean): number[] {
  const killed = new Set<number>();
  for (let round = 0; round < 4; round++) {
    const pids = processesWithToken(wanted).filter((p) => !killed.has(p));
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
