/**
 * Benchmark: every built-in scenario on the mock path with --tick-ms 0, twice over — in-process (the
 * engine alone) and as a user runs it (`arrow run`, a fresh process). Prints wall and CPU time (CPU
 * includes every child process: workers, acceptance checkers). `deno task bench`.
 *
 * @module
 */
import { builtinNames, resolveBuiltin } from "../src/cli/catalog.ts";
import { prepare } from "../src/engine/prepare.ts";
import { startRun } from "../src/engine/run.ts";

const HZ = 100;
const ROOT = new URL("../", import.meta.url).pathname;

/** CPU seconds of this process plus its waited-for children, from /proc/self/stat. */
function cpu(): { self: number; children: number } {
  const f = Deno.readTextFileSync("/proc/self/stat").split(") ")[1]!.split(" ");
  const n = (i: number) => Number(f[i - 3]);
  return { self: (n(14) + n(15)) / HZ, children: (n(16) + n(17)) / HZ };
}

const ms = (s: number) => Math.round(s * 1000);
const rows: string[][] = [];
const dir = await Deno.makeTempDir({ prefix: "arrow-bench-" });
let worst = 0;
const reps = Number(Deno.env.get("BENCH_REPS") ?? 3);

for (const name of builtinNames()) {
  const res = resolveBuiltin(name);
  let best = { wall: Infinity, cpu: 0, ticks: 0 };
  for (let i = 0; i < reps; i++) {
    const c0 = cpu();
    const t0 = performance.now();
    const s = await startRun(prepare(res.plan, res.faults, name, "mock"), {
      runDir: `${dir}/${name}-${i}`,
      tickMs: 0,
      maxTicks: 5000,
    });
    const wall = (performance.now() - t0) / 1000;
    const c1 = cpu();
    if (wall < best.wall) best = { wall, cpu: c1.self - c0.self + c1.children - c0.children, ticks: s.tick };
  }
  let cli = { wall: Infinity, cpu: 0 };
  for (let i = 0; i < reps; i++) {
    const c0 = cpu();
    const t0 = performance.now();
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", `${ROOT}src/cli/main.ts`, "run", "--scenario", name, "--quiet", "--runs-dir", dir],
      stdout: "null",
      stderr: "inherit",
    }).output();
    const wall = (performance.now() - t0) / 1000;
    const c1 = cpu();
    if (out.code !== 0) throw new Error(`arrow run --scenario ${name} exited ${out.code}`);
    if (wall < cli.wall) cli = { wall, cpu: c1.children - c0.children };
  }
  worst = Math.max(worst, cli.wall);
  rows.push([
    name,
    String(best.ticks),
    String(ms(best.wall)),
    String(ms(best.cpu)),
    String(ms(cli.wall)),
    String(ms(cli.cpu)),
  ]);
}
await Deno.remove(dir, { recursive: true });

const head = [
  "scenario",
  "ticks",
  "engine wall ms",
  "engine cpu ms",
  "arrow run wall ms",
  "arrow run cpu ms",
];
const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (r: string[]) => r.map((c, i) => (i ? c.padStart(w[i]!) : c.padEnd(w[i]!))).join("  ");
console.log(`mock scenarios, --tick-ms 0, best of ${reps}, ${navigator.hardwareConcurrency} cores`);
console.log(line(head));
for (const r of rows) console.log(line(r));
console.log(`slowest full \`arrow run\`: ${ms(worst)} ms (goal: under 1500 ms each)`);
