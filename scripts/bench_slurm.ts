/**
 * Benchmark of the Slurm backend on a private one-node cluster (its own directory and ports, and as many
 * CPUs as jobs so N `sleep` jobs run at once — a bigger cluster simulated on one node):
 *
 * - submit: the sbatch call, submit → RUNNING (seen by a tight squeue loop), submit → the job's first output;
 * - cancel: the scancel call, and scancel → CANCELLED;
 * - one poll with N watched running jobs (N = 1, 10, 100, 500 by default): median and worst of a whole poll
 *   (squeue plus the completion file), and of `state()` for all N (what a tick pays);
 * - the largest N whose median poll stays within the budget (default 50 ms), and the cost of one more job.
 *
 * Usage: deno run -A scripts/bench_slurm.ts [--sizes 1,10,100,500] [--rounds 20] [--budget-ms 50]
 * Exits 0 with a printed reason when no cluster can be started.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { execBounded } from "../src/runtime/slurm/exec.ts";
import { jobName, SlurmClient, type SubmitSpec } from "../src/runtime/slurm/mod.ts";

const { values: o } = parseArgs({
  args: Deno.args,
  options: {
    sizes: { type: "string", default: "1,10,100,500" },
    rounds: { type: "string", default: "20" },
    "budget-ms": { type: "string", default: "50" },
    dir: { type: "string", default: "/tmp/arrow-slurm-bench" },
    port: { type: "string", default: "6837" },
  },
});
const SIZES = o.sizes.split(",").map(Number);
const ROUNDS = Number(o.rounds);
const BUDGET = Number(o["budget-ms"]);
const MAX = Math.max(...SIZES);
const CLUSTER = new URL("./slurm/cluster.sh", import.meta.url).pathname;
const PATH = `${Deno.env.get("PATH") ?? "/usr/bin:/bin"}:/usr/sbin`;
const JOB_ENV = { PATH: "/usr/bin:/bin" };

function cluster(cmd: "start" | "stop"): { ok: boolean; text: string } {
  const out = new Deno.Command("bash", {
    args: [CLUSTER, cmd, o.dir],
    env: {
      PATH,
      ARROW_SLURM_PORT: o.port,
      ARROW_SLURM_CPUS: String(Math.max(MAX + 4, 8)),
      ARROW_SLURM_OWNER: "bench",
    },
    stdout: "piped",
    stderr: "piped",
  }).outputSync();
  const dec = new TextDecoder();
  return { ok: out.success, text: dec.decode(out.stdout) + dec.decode(out.stderr) };
}

const q = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const ms = (x: number) => x.toFixed(x < 10 ? 2 : 0);

const t0 = performance.now();
const started = cluster("start");
const conf = started.text.match(/^SLURM_CONF=(.+)$/m)?.[1];
if (!started.ok || !conf) {
  console.log(
    `bench_slurm: skipped — no cluster could be started: ${started.text.trim().split("\n").at(-1)}`,
  );
  Deno.exit(0);
}
console.log(`cluster start: ${ms(performance.now() - t0)} ms (${o.dir}, port ${o.port})`);
const dir = await Deno.makeTempDir({ prefix: "arrow-bench-slurm-" });
const env = { PATH, SLURM_CONF: conf };
const c = await SlurmClient.connect({ conf, pollMs: 3_600_000 });
const spec = (name: string, argv: string[]): SubmitSpec => ({
  name,
  argv,
  env: JOB_ENV,
  cwd: dir,
  stdout: `${dir}/${name}.out`,
  stderr: `${dir}/${name}.err`,
});

/** Polls squeue in a tight loop until the job's state word matches; returns ms since `from`. */
async function until(id: string, state: RegExp, from: number): Promise<number> {
  for (;;) {
    const r = await execBounded("squeue", ["--noheader", "--states=all", `--jobs=${id}`, "--format=%T"], {
      env,
      timeoutMs: 5000,
      maxBytes: 4096,
    });
    if (state.test(r.stdout)) return performance.now() - from;
  }
}

try {
  const sub: number[] = [], run: number[] = [], out: number[] = [], can: number[] = [], gone: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const name = jobName("bench", `lat${i}`, 1);
    const s0 = performance.now();
    const id = await c.submit(spec(name, ["sh", "-c", "echo up; exec sleep 600"]));
    sub.push(performance.now() - s0);
    run.push(await until(id, /RUNNING/, s0));
    for (;;) {
      try {
        if (Deno.statSync(`${dir}/${name}.out`).size > 0) break;
      } catch { /* not yet */ }
      await new Promise((r) => setTimeout(r, 5));
    }
    out.push(performance.now() - s0);
    const k0 = performance.now();
    await c.cancel(id);
    can.push(performance.now() - k0);
    gone.push(await until(id, /CANCELLED/, k0));
  }
  console.log(`\nlatency over ${ROUNDS} jobs (ms)      median    p90`);
  for (
    const [label, xs] of [
      ["sbatch call", sub],
      ["submit -> RUNNING", run],
      ["submit -> first output", out],
      ["scancel call", can],
      ["scancel -> CANCELLED", gone],
    ] as const
  ) console.log(`  ${label.padEnd(28)} ${ms(q(xs, 0.5)).padStart(7)} ${ms(q(xs, 0.9)).padStart(6)}`);

  console.log(`\none poll with N watched running jobs (ms; budget ${BUDGET} ms)`);
  console.log("      N   poll median  poll max   state() x N");
  const ids: string[] = [];
  const rows: { n: number; med: number }[] = [];
  for (const n of SIZES) {
    const batch: Promise<string>[] = [];
    for (let i = ids.length; i < n; i++) {
      batch.push(c.submit(spec(jobName("bench", `w${i}`, 1), ["sleep", "3600"])));
    }
    ids.push(...await Promise.all(batch));
    for (;;) {
      await c.refresh();
      if (ids.every((id) => c.state(id).state === "RUNNING")) break;
    }
    const polls: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      await c.refresh();
      polls.push(c.health().lastPollMs);
    }
    const s0 = performance.now();
    let running = 0;
    for (const id of ids) if (c.state(id).state === "RUNNING") running++;
    const stateMs = performance.now() - s0;
    if (running !== n) throw new Error(`Cannot measure: ${running} of ${n} jobs running`);
    rows.push({ n, med: q(polls, 0.5) });
    console.log(
      `  ${String(n).padStart(5)}   ${ms(q(polls, 0.5)).padStart(11)}  ${
        ms(Math.max(...polls)).padStart(8)
      }   ${ms(stateMs).padStart(11)}`,
    );
  }
  // The floor: starting squeue at all (it loads libslurm and its plugins) without asking the controller.
  const floor: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    floor.push((await execBounded("squeue", ["--version"], { env, timeoutMs: 5000, maxBytes: 4096 })).ms);
  }
  const f = q(floor, 0.5);
  const first = rows[0]!, last = rows.at(-1)!;
  const perJob = (last.med - first.med) / Math.max(1, last.n - first.n);
  console.log(
    `\nsqueue process start alone (--version): ${ms(f)} ms; ${last.n} vs ${first.n} watched jobs: ` +
      (perJob > 0 ? `${(perJob * 1000).toFixed(0)} µs per job` : "no growth above the noise"),
  );
  const within = rows.filter((r) => r.med <= BUDGET).map((r) => r.n);
  console.log(
    within.length
      ? `largest measured N whose median poll stays within ${BUDGET} ms: ${Math.max(...within)}`
      : `no measured N stays within ${BUDGET} ms: starting squeue is the floor of a poll on this machine`,
  );
  console.log(
    "(a poll runs beside the tick: a tick only pays state() lookups; the poll bounds how fresh they are)",
  );
} finally {
  await c.close();
  cluster("stop");
  await Deno.remove(dir, { recursive: true });
}
