/**
 * Benchmark of the portfolio sweep on the real path (`deno task bench:sweep`): 27 configurations of the built-in
 * staged GBDT (learning rate × depth × learning-rate decay, 81 stages) on the generated data set and on real
 * data sets given with `--data`, run by `arrow run --real` with successive halving (η 3, rungs 9 and 27, three
 * gpu slots). Compared with the full sweep (every configuration trained to the end, in-process, same
 * arithmetic, same data and split) and with Optuna's SuccessiveHalvingPruner and HyperbandPruner on the same
 * grid (scripts/bench/optuna_sweep.py, Debian python3-optuna). Goals: the sweep's best within ACCEPT_EPS of the
 * full sweep's best, with at most 40% of its stages. Writes dist/bench_sweep.json and prints a markdown table.
 *
 * Options: `--datasets generated,auto_mpg,cps_wages` (the default), `--stage-ms N` (default 80: a stage lasts
 * about one tick, as on real hardware where a stage takes far longer than Arrow's observation; at 30 ms the
 * trainers outrun the 100 ms ticks and pass a rung by several stages before it is observed).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { type Dataset, loadDataset } from "../src/workers/real/data.ts";
import { Booster } from "../src/workers/real/gbdt.ts";
import { r2 } from "../src/workers/real/score.ts";
import { ACCEPT_EPS } from "../src/thresholds.ts";
import { parseCsvText } from "../src/tabular/csv.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const SPACE = { learning_rate: [0.03, 0.1, 0.3], depth: [1, 3, 5], lr_decay: [1, 0.99, 0.97] };
const STAGES = 81;
const RUNGS = [9, 27];
const ETA = 3;

/** Real data sets from dist/datasets (scripts/datasets/prepare.ts), cut to their numeric columns. */
const SOURCES: Record<string, { file: string; target: string }> = {
  auto_mpg: { file: "dist/datasets/auto_mpg.csv", target: "Miles_per_Gallon" },
  cps_wages: { file: "dist/datasets/cps_wages.csv", target: "wage" },
};

export function planYaml(stageMs: number): string {
  const values = (v: number[]) => `{ values: [${v.join(", ")}] }`;
  return `question: Which configuration of a staged GBDT beats a linear baseline, found by successive halving?
protocol: { version: bench-sweep, metric: dev_r2, direction: maximize }
resources: { slots: { gpu: 3, cpu: 3 } }
nodes:
  - { id: N0, kind: fast, role: protocol }
  - { id: N1, kind: fast, role: data, worker: { type: builtin, name: make_data } }
  - { id: N2, kind: fast, role: harness }
  - { id: N3, kind: fast, role: baseline, acceptance: ["@claim"], worker: { type: builtin, name: ols_baseline } }
  - id: N4
    kind: long
    role: train
    observe_every: 1s
    acceptance: ["@claim"]
    worker: { type: builtin, name: gbdt_train, args: { stages: ${STAGES}, ckpt_every: 3, stage_ms: ${stageMs} } }
    sweep:
      space:
${Object.entries(SPACE).map(([k, v]) => `        ${k}: ${values(v)}`).join("\n")}
      grid: true
      halving: { eta: ${ETA}, rungs: [${RUNGS.join(", ")}] }
  - { id: N4r, kind: reactive, role: eval, acceptance: ["@claim"], worker: { type: builtin, name: ckpt_eval } }
edges:
  - { from: N0, to: N1, kind: artifact }
  - { from: N1, to: N2, kind: artifact }
  - { from: N2, to: N3, kind: artifact }
  - { from: N2, to: N4, kind: artifact }
  - { from: N2, to: N4r, kind: artifact }
  - { from: N4, to: N4r, kind: stream }
`;
}

/** The numeric columns of a CSV (every non-empty cell a number), rows with a missing cell dropped. */
function numericCsv(text: string, file: string): string {
  const { header, rows } = parseCsvText(text, file);
  const num = (s: string) => s.trim() !== "" && Number.isFinite(Number(s));
  const keep = header.map((_, j) => rows.every((r) => r[j]!.trim() === "" || num(r[j]!)));
  const pick = (r: string[]) => r.filter((_, j) => keep[j]);
  const full = rows.map(pick).filter((r) => r.every(num));
  return [pick(header).join(","), ...full.map((r) => r.join(","))].join("\n") + "\n";
}

function configs(): Record<string, number>[] {
  let out: Record<string, number>[] = [{}];
  for (const k of Object.keys(SPACE).sort()) {
    out = out.flatMap((c) => SPACE[k as keyof typeof SPACE].map((v) => ({ ...c, [k]: v })));
  }
  return out;
}

/** Every configuration trained to the end: its best dev R² (what the trainer claims) and the stages spent. */
function fullSweep(
  data: Dataset,
): { best: number; args: Record<string, number>; stages: number; wall_s: number } {
  const t0 = performance.now();
  let top = { best: -Infinity, args: {} as Record<string, number> };
  for (const c of configs()) {
    const b = new Booster(data.train, data.dev, c.depth!);
    let rate = c.learning_rate!;
    let best = -Infinity;
    for (let s = 1; s <= STAGES; s++) {
      if (s > 1) rate *= c.lr_decay!;
      b.stage(rate);
      best = Math.max(best, r2(data.dev.y, b.fDev));
    }
    if (best > top.best) top = { best, args: c };
  }
  return { ...top, stages: configs().length * STAGES, wall_s: (performance.now() - t0) / 1000 };
}

async function run(cmd: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "piped", cwd: ROOT }).output();
  const dec = new TextDecoder();
  if (!out.success) {
    throw new Error(`Cannot run ${cmd} ${args.join(" ")}: ${dec.decode(out.stderr).slice(-800)}`);
  }
  return dec.decode(out.stdout);
}

/** One pruner's result as scripts/bench/optuna_sweep.py prints it. */
interface OptunaResult {
  best: number;
  best_params: Record<string, unknown>;
  stages: number;
  complete: number;
  wall_s: number;
}

interface Row {
  method: string;
  best: number;
  args: Record<string, unknown>;
  stages: number;
  complete: number;
  wall_s: number;
}

async function bench(name: string, tmp: string, stageMs: number): Promise<{ rows: Row[]; full: number }> {
  const planFile = `${tmp}/sweep_plan.yaml`;
  Deno.writeTextFileSync(planFile, planYaml(stageMs));
  const extra: string[] = [];
  if (name !== "generated") {
    const src = SOURCES[name];
    if (!src) {
      throw new RangeError(`Cannot bench "${name}": known data sets are generated, ${Object.keys(SOURCES)}`);
    }
    const file = `${tmp}/${name}.csv`;
    Deno.writeTextFileSync(file, numericCsv(Deno.readTextFileSync(`${ROOT}${src.file}`), src.file));
    extra.push("--data", file, "--target", src.target);
  }
  const t0 = performance.now();
  const out = JSON.parse(
    await run(Deno.execPath(), [
      ...["run", "-A", "--no-prompt", "src/cli/main.ts", "run", planFile, "--real", "--json"],
      ...["--runs-dir", `${tmp}/runs`, ...extra],
    ]),
  );
  const wall = (performance.now() - t0) / 1000;
  const dir = out.run_dir as string;
  const state = JSON.parse(Deno.readTextFileSync(`${dir}/state.json`));
  const g = state.plan.sweeps[0];
  let stages = 0;
  let complete = 0;
  for (const c of g.configs) {
    const lines = Deno.readTextFileSync(`${dir}/nodes/${c.id}/metrics.jsonl`).trim().split("\n");
    stages += lines.map((l) => JSON.parse(l)).filter((m) => m.step > 0).length;
    if (state.nodes[c.id].status === "verified") complete++;
  }
  const winner = g.configs.find((c: { id: string }) => c.id === out.method);
  const arrowRow: Row = {
    method: `arrow sweep (${out.verdict})`,
    best: out.scores[out.method] ?? NaN,
    args: winner?.args ?? {},
    stages,
    complete,
    wall_s: wall,
  };
  const n1 = `${dir}/nodes/N1`;
  const manifest = JSON.parse(Deno.readTextFileSync(`${n1}/results.json`));
  const data = loadDataset(`${n1}/${manifest.artifact}`, `${n1}/${manifest.split}`);
  const full = fullSweep(data);
  const cfg = `${tmp}/optuna.json`;
  Deno.writeTextFileSync(
    cfg,
    JSON.stringify({
      data: `${n1}/${manifest.artifact}`,
      split: `${n1}/${manifest.split}`,
      space: SPACE,
      stages: STAGES,
      min_resource: RUNGS[0],
      eta: ETA,
      seed: 0,
    }),
  );
  const opt = JSON.parse(await run("/usr/bin/python3", [`${ROOT}scripts/bench/optuna_sweep.py`, cfg]));
  const optRow = (method: string, o: OptunaResult): Row => ({
    method,
    best: o.best,
    args: o.best_params,
    stages: o.stages,
    complete: o.complete,
    wall_s: o.wall_s,
  });
  return {
    full: full.best,
    rows: [
      {
        method: "full sweep",
        best: full.best,
        args: full.args,
        stages: full.stages,
        complete: 27,
        wall_s: full.wall_s,
      },
      arrowRow,
      optRow("optuna successive halving", opt.successive_halving),
      optRow("optuna hyperband", opt.hyperband),
    ],
  };
}

const args = (a: Record<string, unknown>) =>
  Object.entries(a).sort().map(([k, v]) => `${k.replace("learning_rate", "lr")}=${v}`).join(" ");

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      datasets: { type: "string", default: "generated,auto_mpg,cps_wages" },
      "stage-ms": { type: "string" },
    },
  });
  const stageMs = Number(values["stage-ms"] ?? 80);
  const tmp = await Deno.makeTempDir({ prefix: "arrow-bench-sweep-" });
  const results: Record<string, { rows: Row[]; full: number }> = {};
  try {
    for (const name of values.datasets!.split(",")) {
      console.error(`bench:sweep ${name} …`);
      results[name] = await bench(name, `${tmp}`, stageMs);
    }
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
  const lines = [
    `27 configurations (${args(SPACE as never)}), ${STAGES} stages, η ${ETA}, rungs ${RUNGS.join(", ")}; ` +
    `goal: best within ACCEPT_EPS ${ACCEPT_EPS} of the full sweep's, ≤ 40% of its stages.`,
    "",
    "| data | method | best dev R² | Δ to full best | within ε | stages | % of full | completed | wall s | best config |",
    "|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const [name, r] of Object.entries(results)) {
    const full = r.rows[0]!.stages;
    for (const row of r.rows) {
      const d = row.best - r.full;
      lines.push(
        `| ${name} | ${row.method} | ${row.best.toFixed(4)} | ${d.toFixed(4)} | ${
          Math.abs(d) <= ACCEPT_EPS ? "yes" : "no"
        } | ${row.stages} | ${(100 * row.stages / full).toFixed(1)}% | ${row.complete} | ${
          row.wall_s.toFixed(1)
        } | ${args(row.args)} |`,
      );
    }
  }
  console.log(lines.join("\n"));
  Deno.mkdirSync(`${ROOT}dist`, { recursive: true });
  Deno.writeTextFileSync(`${ROOT}dist/bench_sweep.json`, JSON.stringify(results, null, 2) + "\n");
}
