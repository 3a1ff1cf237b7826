/**
 * Processes that outlive their node. A worker's process group is stopped as a whole, and under bubblewrap
 * its pid namespace dies with it; without bubblewrap a double-forked daemon escapes the group, so every
 * attempt carries a token in its environment and the processes still carrying it are found and killed.
 *
 * @module
 */

/** Pids of live processes whose initial environment holds `ARROW_TOKEN=<token>`. */
export function processesWithToken(token: string): number[] {
  const needle = new TextEncoder().encode(`ARROW_TOKEN=${token}\u0000`);
  const out: number[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync("/proc")];
  } catch {
    return [];
  }
  for (const d of entries) {
    if (!/^\d+$/.test(d.name) || Number(d.name) === Deno.pid) continue;
    try {
      const env = Deno.readFileSync(`/proc/${d.name}/environ`);
      if (indexOf(env, needle) >= 0) out.push(Number(d.name));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return out;
}

function indexOf(hay: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/** Kills every process still carrying `token`; returns their pids. */
export function sweepOrphans(token: string): Promise<number[]> {
  const pids = processesWithToken(token);
  for (const pid of pids) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  return Promise.resolve(pids);
}
