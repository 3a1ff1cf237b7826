/**
 * A trainer starved of CPU is not a hung trainer. The Python example trainer runs pinned to CPU 0 at nice
 * 19; once it has logged its first stage, three busy loops at nice -20 take CPU 0 for eight seconds, so it
 * logs nothing for longer than its hang window (three silent 1 s observations). The overwatch postpones its
 * observations by the time it waited for a CPU (runtime/proc/cpu_wait.ts): no HUNG_RESTART, and the run answers
 * as the unloaded run does. A trainer that sleeps as long is still hung (tests/real_python_test.ts).
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { findBwrap } from "../src/cli/sandbox.ts";
import { readStat } from "../src/runtime/proc/proc_stat.ts";
import { pythonPlan, runReal } from "./helpers/real.ts";

const HAS = (p: string) => {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
};
const schedstat = (() => {
  try {
    return Deno.readTextFileSync("/proc/self/schedstat").length > 0;
  } catch {
    return false;
  }
})();
const ignore = !schedstat || !HAS("/usr/bin/taskset") || !HAS("/usr/bin/nice");
if (ignore) console.log("real_starved_test: ignored (needs /proc/<pid>/schedstat, taskset and nice)");

/** Processes of this run's N4 trainer (their environment names the run directory). */
function trainerPids(dir: string): number[] {
  const out: number[] = [];
  for (const d of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(d.name)) continue;
    try {
      const env = Deno.readTextFileSync(`/proc/${d.name}/environ`);
      if (env.includes(`ARROW_RUN_DIR=${dir}\0`) && env.includes("ARROW_NODE=N4\0")) out.push(Number(d.name));
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

function autogroup(pid: number, nice: number) {
  try {
    Deno.writeTextFileSync(`/proc/${pid}/autogroup`, String(nice));
  } catch {
    // no autogroups on this kernel: nice alone decides
  }
}

const STARVE_MS = 8000;
const BUSY = "while :; do :; done";

Deno.test({
  name: "a trainer starved of CPU for 8 s is not called hung; the run answers as unloaded",
  ignore,
  async fn() {
    const bwrap = await findBwrap();
    const plan = pythonPlan();
    const n4 = plan.nodes.find((n) => n.id === "N4")!;
    const w = n4.worker as { type: "command"; argv: string[] };
    w.argv = ["taskset", "-c", "0", "nice", "-n", "19", ...w.argv];
    const dir = await Deno.makeTempDir({ prefix: "arrow-real-starved-" });
    const metrics = `${dir}/nodes/N4/metrics.jsonl`;
    const size = () => {
      try {
        return Deno.statSync(metrics).size;
      } catch {
        return 0;
      }
    };
    let gap = 0;
    const hogs: Deno.ChildProcess[] = [];
    const watch = (async () => {
      // Wait for the first stage, then starve the trainer and time its longest silence.
      while (size() === 0) await new Promise((r) => setTimeout(r, 20));
      // The trainer runs in its own session, so in its own scheduler autogroup: nice values weigh only
      // inside a group, so the groups themselves are weighted (trainer's lowest, the hogs' highest).
      for (const pid of trainerPids(dir)) autogroup(pid, 19);
      for (let i = 0; i < 3; i++) {
        const h = new Deno.Command("setsid", {
          args: ["nice", "-n", "-20", "taskset", "-c", "0", "sh", "-c", BUSY],
          stdout: "null",
          stderr: "null",
        }).spawn();
        hogs.push(h);
      }
      // A hog's autogroup is its own once setsid has run (its session is its pid).
      for (const h of hogs) {
        while (readStat(h.pid)?.session !== h.pid) await new Promise((r) => setTimeout(r, 5));
        autogroup(h.pid, -20);
      }
      const t0 = performance.now();
      let last = size(), since = t0;
      while (performance.now() - t0 < STARVE_MS) {
        await new Promise((r) => setTimeout(r, 20));
        const s = size();
        if (s !== last) [last, since] = [s, performance.now()];
        gap = Math.max(gap, performance.now() - since);
      }
      for (const h of hogs) h.kill("SIGKILL");
      await Promise.all(hogs.map((h) => h.status));
    })();
    try {
      const r = await runReal("starved", plan, [], { bwrap, dir });
      await watch;
      ok(gap >= 4000, `the trainer was silent for ${gap.toFixed(0)} ms: longer than its hang window`);
      deepEqual(r.triples, [], JSON.stringify(r.incidents));
      equal(r.state.nodes.N4!.status, "verified");
      equal(r.state.verdict, "RESEARCH ANSWERED");
    } finally {
      for (const h of hogs) {
        try {
          h.kill("SIGKILL");
        } catch {
          // gone
        }
      }
      await watch.catch(() => {});
      await Deno.remove(dir, { recursive: true });
    }
  },
});
