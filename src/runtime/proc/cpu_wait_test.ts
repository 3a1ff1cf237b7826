import { ok } from "node:assert/strict";
import { CpuWait, processTree } from "./cpu_wait.ts";

const HAS_SCHEDSTAT = (() => {
  try {
    return Deno.readTextFileSync("/proc/self/schedstat").split(" ").length >= 2;
  } catch {
    return false;
  }
})();
const HAS_TOOLS = ["/usr/bin/taskset", "/usr/bin/nice"].every((p) => {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
});
const ignore = !HAS_SCHEDSTAT || !HAS_TOOLS;
if (ignore) console.log("cpu_wait_test: ignored (needs /proc/<pid>/schedstat, taskset and nice)");

const BUSY = "while :; do :; done";

function start(args: string[]): Deno.ChildProcess {
  return new Deno.Command(args[0]!, { args: args.slice(1), stdout: "null", stderr: "null" }).spawn();
}

/** Hogs at the highest priority on CPU 0: whatever else is pinned there at nice 19 barely runs. */
function hogs(n: number): Deno.ChildProcess[] {
  return Array.from(
    { length: n },
    () => start(["nice", "-n", "-20", "taskset", "-c", "0", "sh", "-c", BUSY]),
  );
}

async function end(ps: Deno.ChildProcess[]) {
  // Children first: a busy grandchild would outlive its shell.
  for (const pid of ps.flatMap((p) => processTree(p.pid).reverse())) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  await Promise.all(ps.map((p) => p.status));
}

/** True once `pid` runs the `sleep` program and is in an interruptible sleep. */
function asleep(pid: number): boolean {
  try {
    const comm = Deno.readTextFileSync(`/proc/${pid}/comm`).trim();
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return comm === "sleep" && stat.slice(stat.lastIndexOf(")") + 2).startsWith("S");
  } catch {
    return false;
  }
}

/** Samples a tree's wait over a window of `ms` of wall time (the window is what is measured). */
async function measure(root: number, ms: number): Promise<{ wall: number; waited: number }> {
  const w = new CpuWait(root);
  const t0 = performance.now();
  w.waited(t0);
  await new Promise((r) => setTimeout(r, ms));
  const t1 = performance.now();
  return { wall: t1 - t0, waited: w.waited(t1) };
}

Deno.test({
  name: "CpuWait: a process starved on a busy CPU waited most of the window; a sleeping one did not",
  ignore,
  async fn() {
    // The sleeper is asleep before the hogs start: a sleeper still being exec'd behind them would wait for
    // a CPU once, and the kernel reports that wait only when it finally runs, inside the window.
    const sleeper = start(["sleep", "30"]);
    while (!asleep(sleeper.pid)) await new Promise((r) => setTimeout(r, 10));
    const h = hogs(3);
    // The starved process is a grandchild: the wait is found through the tree, not only the leader.
    const starved = start(["sh", "-c", `nice -n 19 taskset -c 0 sh -c '${BUSY}'; true`]);
    try {
      // Measure once the busy grandchild exists (a process born starved is counted from its next window).
      while (processTree(starved.pid).length < 2) await new Promise((r) => setTimeout(r, 10));
      const [s, z] = await Promise.all([measure(starved.pid, 1500), measure(sleeper.pid, 1500)]);
      ok(s.waited >= 0.5 * s.wall, `starved: waited ${s.waited.toFixed(0)} of ${s.wall.toFixed(0)} ms`);
      ok(s.waited <= s.wall, "never more than the window");
      ok(z.waited <= 0.05 * z.wall, `sleeping: waited ${z.waited.toFixed(0)} of ${z.wall.toFixed(0)} ms`);
      ok(processTree(starved.pid).length >= 2, "the tree holds the leader and its child");
    } finally {
      await end([...h, starved, sleeper]);
    }
  },
});

Deno.test("CpuWait: a process that is gone waited nothing (the wall clock stands)", () => {
  const w = new CpuWait(2 ** 22 + 12345);
  w.waited(0);
  ok(w.waited(1000) === 0);
});
