/**
 * How long a worker's processes waited for a CPU. On a loaded machine a process that is ready to run sits
 * on a run queue. Silence is judged on the time a node could have run: the real path postpones a node's
 * next observation (and tree mode its hang clock) by the wait, so a trainer starved by other work is not
 * called hung, while one that sleeps or spins with a CPU to itself is judged on the wall clock as before.
 *
 * The kernel adds a task's run-queue wait to `/proc/<pid>/schedstat` (second field, ns) only when the wait
 * ends — a task starved outright shows none. So a window also counts, for a process found runnable (state
 * R) at both its ends, the window minus the CPU time it got (first field): that wait is credited at once,
 * and taken off what schedstat reports later for the same wait. A window counts the most any one process
 * waited in it — processes waiting at the same time overlap — at most the window itself.
 *
 * The tree is walked from the worker's leader through the main threads' `children` lists (at most
 * MAX_TREE processes). Where /proc says nothing (another kernel, a Slurm job on another node, a process
 * already gone) the wait is 0: the wall clock, never a more lenient one.
 *
 * @module
 */

/** Most processes of one worker's tree sampled per window. */
export const MAX_TREE = 64;

interface Sample {
  /** CPU time (ns) and run-queue wait already accounted by the kernel (ns). */
  run: number;
  delay: number;
  runnable: boolean;
  /** Ms of wait credited from the runnable rule, not yet reported by the kernel. */
  credit: number;
}

function sample(pid: number): Omit<Sample, "credit"> | null {
  try {
    const f = Deno.readTextFileSync(`/proc/${pid}/schedstat`).split(" ");
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    const [run, delay] = [Number(f[0]), Number(f[1])];
    if (!Number.isFinite(run) || !Number.isFinite(delay)) return null;
    return { run, delay, runnable: state === "R" };
  } catch {
    return null;
  }
}

function childrenOf(pid: number): number[] {
  try {
    return Deno.readTextFileSync(`/proc/${pid}/task/${pid}/children`).trim().split(" ").filter(Boolean).map(
      Number,
    );
  } catch {
    return [];
  }
}

/** The leader and its descendants (breadth first, at most MAX_TREE). */
export function processTree(root: number): number[] {
  const out: number[] = [];
  const queue = [root];
  const seen = new Set<number>();
  while (queue.length && out.length < MAX_TREE) {
    const pid = queue.shift()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    out.push(pid);
    queue.push(...childrenOf(pid));
  }
  return out;
}

/** Run-queue wait of one worker's process tree, window by window. */
export class CpuWait {
  #seen = new Map<number, Sample>();
  #at: number | null = null;
  /** Ms waited over every window so far. */
  total = 0;

  constructor(readonly root: number) {}

  /**
   * Ms the tree waited for a CPU since the previous call (0 on the first), at most the wall time between
   * the calls. `now` is a wall-clock reading in ms.
   */
  waited(now: number): number {
    const wall = this.#at === null ? 0 : Math.max(0, now - this.#at);
    const next = new Map<number, Sample>();
    let most = 0;
    for (const pid of processTree(this.root)) {
      const cur = sample(pid);
      if (!cur) continue;
      const prev = this.#seen.get(pid);
      let credit = prev?.credit ?? 0;
      let wait = 0;
      if (this.#at !== null) {
        // A process born in the window waited its whole count in it.
        const reported = (cur.delay - (prev?.delay ?? 0)) / 1e6;
        const known = Math.min(credit, reported);
        credit -= known;
        wait = reported - known;
        if (prev?.runnable && cur.runnable) {
          const ongoing = wall - (cur.run - prev.run) / 1e6;
          if (ongoing > wait) {
            credit += ongoing - wait;
            wait = ongoing;
          }
        }
      }
      next.set(pid, { ...cur, credit });
      most = Math.max(most, wait);
    }
    this.#seen = next;
    this.#at = now;
    const ms = Math.min(wall, most);
    this.total += ms;
    return ms;
  }
}
