/**
 * Benchmark of the runtime backends through the engine's own World (the code a run uses), local process
 * groups against Slurm batch jobs on a private one-node cluster with as many CPUs as jobs (a bigger cluster
 * simulated on one node):
 *
 * - per job start: what the tick pays (the start call), start → the backend reports it running (what SENSE
 *   sees), start → the program's first line on the shared filesystem; per job stop (cancel and settle vs a
 *   process-group TERM);
 * - per tick: SENSE with N running long nodes, local vs Slurm (the difference is what Slurm adds per tick),
 *   and the poller's squeue round for N jobs, which runs beside the tick and bounds how fresh job states are;
 * - the largest N whose median SENSE stays within the tick budget (default 100 ms, the real path's pace).
 *
 * Usage: deno run -A scripts/bench_runtime.ts [--sizes 10,50,100,200] [--rounds 10] [--budget-ms 100]
 * Exits 0 with a printed reason when no cluster can be started.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { stringify } from "yaml";
import { REAL_TICK_MS } from "../src/cli/run.ts";
import { prepare } from "../src/engine/prepare.ts";
import { SLURM_POLL_MS } from "../src/engine/run.ts";
import { loadPlan } from "../src/graph/load.ts";
import type { RunState } from "../src/model/state.ts";
import { SlurmBackend } from "../src/runtime/backend/slurm.ts";
import { SlurmClient } from "../src/runtime/slurm/client.ts";
import { World } from "../src/runtime/world.ts";

const { values: o } = parseArgs({
  args: Deno.args,
  options: {
    sizes: { type: "string", default: "10,50,100,200" },
    rounds: { type: "string", default: "10" },
    "budget-ms": { type: "string", default: String(REAL_TICK_MS) },
    dir: { type: "string", default: "/tmp/arrow-bench-runtime" },
    port: { type: "string", default: "6847" },
  },
});
const SIZES = o.sizes.split(",").map(Number).sort((a, b) => a - b);
const ROUNDS = Number(o.rounds);
const BUDGET = Number(o["budget-ms"]);
const MAX = Math.max(...SIZES);
const CLUSTER = new URL("./slurm/cluster.sh", import.meta.url).pathname;
const PATH = `${Deno.env.get("PATH") ?? "/usr/bin:/bin"}:/usr/sbin`;

function cluster(cmd: "start" | "stop"): { ok: boolean; text: string } {
  const out = new Deno.Command("bash", {
    args: [CLUSTER, cmd, o.dir],
    env: { PATH, ARROW_SLURM_PORT: o.port, ARROW_SLURM_CPUS: String(MAX + 8), ARROW_SLURM_OWNER: "bench" },
    stdout: "piped",
    stderr: "piped",
  }).outputSync();
  const dec = new TextDecoder();
  return { ok: out.success, text: dec.decode(out.stdout) + dec.decode(out.stderr) };
}

const q = (xs: number[], p: number) =>
  xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]! : NaN;
const ms = (x: number) => (Number.isNaN(x) ? "—" : x.toFixed(x < 10 ? 2 : 0));
const until = async (check: () => boolean, timeoutMs: number, what: string) => {
  const deadline = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`Cannot measure: ${what} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 2));
  }
};

/** A plan of `n` long nodes, each a command worker that writes one metrics line and then waits. */
function planState(n: number, runtime: "local" | "slurm"): RunState {
  const nodes = Array.from({ length: n }, (_, i) => ({
    id: `J${i}`,
    kind: "long",
    role: "train",
    acceptance: ["@manifest"],
    worker: {
      type: "command",
      argv: ["sh", "-c", `echo '{"step":0,"m":0}' >> metrics.jsonl; exec sleep 3600`],
    },
    slurm: { gres: "none" },
  }));
  const text = stringify({
    question: "how many jobs can one arrow watch?",
    protocol: { version: "v1", metric: "m", direction: "maximize" },
    resources: { runtime },
    nodes,
  });
  const r = loadPlan(text, "bench.yaml");
  if (!r.plan) throw new Error(JSON.stringify(r.errors.slice(0, 3)));
  const state = prepare(r.plan, [], "bench", "real");
  // SENSE looks at the nodes the state says are running (the bench plays the step's part).
  for (const id of r.plan.order) Object.assign(state.nodes[id]!, { status: "running", attempt: 1 });
  return state;
}

interface Side {
  world: World;
  state: RunState;
  dir: string;
}

/** A World over a fresh run directory; on Slurm with its own client (a run owns and closes its client). */
async function side(n: number, runtime: "local" | "slurm"): Promise<Side & { client: SlurmClient | null }> {
  const dir = await Deno.makeTempDir({ prefix: `arrow-bench-${runtime}-` });
  const world = new World({ runDir: dir, unsandboxed: true });
  const client = runtime === "slurm" ? await SlurmClient.connect({ conf, pollMs: SLURM_POLL_MS }) : null;
  if (client) world.slurm = new SlurmBackend(client, dir);
  return { world, state: planState(n, runtime), dir, client };
}

const metricsOf = (s: Side, id: string) => {
  try {
    return Deno.statSync(`${s.dir}/nodes/${id}/metrics.jsonl`).size > 0;
  } catch {
    return false;
  }
};

/** Start and stop latencies of single jobs, one at a time. */
async function latencies(runtime: "local" | "slurm") {
  const s = await side(ROUNDS, runtime);
  const call: number[] = [], running: number[] = [], output: number[] = [], stop: number[] = [];
  try {
    for (let i = 0; i < ROUNDS; i++) {
      const id = `J${i}`;
      const t0 = performance.now();
      s.world.start(s.state, id, 1, true, null, 0);
      call.push(performance.now() - t0);
      const h = s.world.handles.get(id)!;
      let seen = false, wrote = false;
      await until(
        () => {
          if (!seen && h.proc.look().phase === "running") {
            seen = true;
            running.push(performance.now() - t0);
          }
          if (!wrote && metricsOf(s, id)) {
            wrote = true;
            output.push(performance.now() - t0);
          }
          return seen && wrote;
        },
        60_000,
        `${id} to run`,
      );
      const k0 = performance.now();
      await s.world.stop(id);
      stop.push(performance.now() - k0);
    }
  } finally {
    await s.world.shutdown();
    await Deno.remove(s.dir, { recursive: true });
  }
  return { call, running, output, stop };
}

/** SENSE with n running long nodes, and (Slurm) the poller's round for n jobs. */
async function watch(n: number, runtime: "local" | "slurm") {
  const s = await side(n, runtime);
  const client = s.client;
  const senses: number[] = [];
  try {
    for (const id of s.state.plan.order) s.world.start(s.state, id, 1, true, null, 0);
    await until(
      () => s.state.plan.order.every((id) => s.world.handles.get(id)?.proc.look().phase === "running"),
      300_000,
      `${n} ${runtime} processes to run`,
    );
    let tick = s.state.tick;
    const looks: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const t0 = performance.now();
      await s.world.sense(s.state, ++tick);
      senses.push(performance.now() - t0);
      // The backend's own share of a tick: asking every running attempt what its process is doing.
      const l0 = performance.now();
      for (const h of s.world.handles.values()) h.proc.look();
      looks.push(performance.now() - l0);
      await new Promise((res) => setTimeout(res, REAL_TICK_MS));
    }
    const polls: number[] = [];
    if (client) {
      for (let r = 0; r < Math.min(ROUNDS, 5); r++) {
        await client.refresh();
        polls.push(client.health().lastPollMs);
      }
    }
    return { sense: senses, look: looks, poll: polls };
  } finally {
    await s.world.shutdown();
    await Deno.remove(s.dir, { recursive: true });
  }
}

const t0 = performance.now();
const started = cluster("start");
const conf = started.text.match(/^SLURM_CONF=(.+)$/m)?.[1];
if (!started.ok || !conf) {
  console.log(
    `bench_runtime: skipped — no cluster could be started: ${started.text.trim().split("\n").at(-1)}`,
  );
  Deno.exit(0);
}
console.log(`cluster start: ${ms(performance.now() - t0)} ms (${o.dir}, port ${o.port}, ${MAX + 8} CPUs)`);
try {
  const local = await latencies("local");
  const slurm = await latencies("slurm");
  console.log(`\nper job (ms, median / p90 of ${ROUNDS})        local            slurm`);
  for (
    const [label, a, b] of [
      ["start call (what the tick pays)", local.call, slurm.call],
      ["start -> reported running", local.running, slurm.running],
      ["start -> first line on disk", local.output, slurm.output],
      ["stop (until it cannot write)", local.stop, slurm.stop],
    ] as const
  ) {
    const cell = (xs: number[]) => `${ms(q(xs, 0.5)).padStart(7)} / ${ms(q(xs, 0.9)).padStart(6)}`;
    console.log(`  ${label.padEnd(34)} ${cell(a)}  ${cell(b)}`);
  }
  console.log(`  (job states come from a poller every ${SLURM_POLL_MS} ms; "reported running" includes it)`);

  console.log(`\nSENSE per tick with N running long nodes (ms; budget ${BUDGET} ms)`);
  console.log("      N   local med / max    slurm med / max    look() x N local / slurm    squeue round");
  const within = { local: 0, slurm: 0 };
  const pair = (a: string, b: string, w: number) => `${a} / ${b}`.padStart(w);
  for (const n of SIZES) {
    const l = await watch(n, "local");
    const s = await watch(n, "slurm");
    const [lm, sm] = [q(l.sense, 0.5), q(s.sense, 0.5)];
    if (lm <= BUDGET) within.local = n;
    if (sm <= BUDGET) within.slurm = n;
    console.log(
      `  ${String(n).padStart(5)}   ${pair(ms(lm), ms(Math.max(...l.sense)), 15)}   ${
        pair(ms(sm), ms(Math.max(...s.sense)), 15)
      }   ${pair(ms(q(l.look, 0.5)), ms(q(s.look, 0.5)), 25)}   ${ms(q(s.poll, 0.5)).padStart(12)}`,
    );
  }
  console.log(
    `\nlargest measured N whose median SENSE stays within ${BUDGET} ms: local ${within.local || "none"}, ` +
      `slurm ${within.slurm || "none"}`,
  );
  console.log(
    "(SENSE reads each job's state from the poller's cache; the squeue round runs beside the tick, so a slow " +
      "scheduler makes states older, never a tick longer)",
  );
} finally {
  cluster("stop");
}
