/**
 * GBDT benchmark (`deno task bench:tabular`): on the same seeded splits and the same encoded matrices, the
 * toolkit's GBDT against scikit-learn's GradientBoosting and XGBoost (`tree_method=hist`) with the same
 * stages, depth and learning rate — test accuracy and AUC (or r2 and rmse) and fit time. Goals (issue 12):
 * within 0.01 of sklearn and at least as fast; within 0.01 of XGBoost and within 3× its time. A second table
 * sets the toolkit's linear model (ridge / L2 logistic, `--alpha`) beside the GBDT and beside scikit-learn's
 * Ridge / LogisticRegression(C = 1/alpha) on the same standardised inputs.
 *
 * `deno run -A scripts/bench_tabular.ts [--data dist/datasets] [--seeds 3] [--stages 100] [--depth 3]
 * [--lr 0.1] [--alpha 1] [--repeats 3] [--threads 1] [--synthetic 100000] [--json FILE] [name …]` — run
 * scripts/datasets/prepare.ts first. `--threads 2` runs both the toolkit's GBDT (the same model) and XGBoost
 * on two threads. `--synthetic N` adds a seeded N-row timing probe (0 = off), run with one seed.
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  applyEncoding,
  applyEncodingToTrain,
  closeGbdtThreads,
  fitEncoding,
  fitGbdt,
  fitLinear,
  makeSplits,
  makeTarget,
  type Matrix,
  type MetricName,
  mulberry32,
  predictGbdt,
  type Prediction,
  predictLinear,
  readCsvFile,
  score,
  type Task,
} from "../src/tabular/mod.ts";

const { values: opt, positionals } = parseArgs({
  args: Deno.args,
  options: {
    data: { type: "string", default: "dist/datasets" },
    seeds: { type: "string", default: "3" },
    stages: { type: "string", default: "100" },
    depth: { type: "string", default: "3" },
    lr: { type: "string", default: "0.1" },
    alpha: { type: "string", default: "1" },
    repeats: { type: "string", default: "3" },
    threads: { type: "string", default: "1" },
    json: { type: "string", default: "dist/bench_tabular.json" },
    synthetic: { type: "string", default: "100000" },
  },
  allowPositionals: true,
});
const num = (s: string | undefined) => Number(s);
const [seeds, stages, depth, lr, repeats] = [
  num(opt.seeds),
  num(opt.stages),
  num(opt.depth),
  num(opt.lr),
  num(opt.repeats),
];

interface Index {
  name: string;
  file: string;
  target: string;
  /** Seeds for this dataset when fewer than --seeds (the large timing probe runs once). */
  seeds?: number;
}
let index: Index[];
try {
  index = JSON.parse(Deno.readTextFileSync(`${opt.data}/index.json`));
} catch {
  console.error(`Cannot read ${opt.data}/index.json: run "deno run -A scripts/datasets/prepare.ts" first`);
  Deno.exit(1);
}
if (positionals.length) index = index.filter((d) => positionals.includes(d.name));
const synthRows = num(opt.synthetic);
if (synthRows > 0 && (!positionals.length || positionals.includes("synthetic"))) {
  index.push({ name: "synthetic", file: writeSynthetic(synthRows), target: "y", seeds: 1 });
}

/**
 * A timing probe, not a public dataset: 20 uniform features, 10% of x0 missing, y = XOR of the signs of x0
 * and x1 with 10% of labels flipped (seeded mulberry32), so fit time is measured at 100k rows too.
 */
function writeSynthetic(n: number): string {
  const rng = mulberry32(2024);
  const lines = [[...Array.from({ length: 20 }, (_, j) => `x${j}`), "y"].join(",")];
  for (let i = 0; i < n; i++) {
    const x = Array.from({ length: 20 }, () => rng() * 2 - 1);
    const y = (x[0]! > 0) !== (x[1]! > 0) !== (rng() < 0.1) ? "1" : "0";
    const cells = x.map((v) => v.toFixed(5));
    if (rng() < 0.1) cells[0] = "";
    lines.push([...cells, y].join(","));
  }
  const file = `${opt.data}/synthetic_${n}.csv`;
  Deno.writeTextFileSync(file, lines.join("\n") + "\n");
  return file;
}

const PY = Deno.env.get("ARROW_PYTHON") ?? (exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3");
const refOk =
  (await new Deno.Command(PY, { args: ["-c", "import sklearn, xgboost"], stderr: "null" }).output())
    .success;
if (!refOk) {
  console.error(`note: ${PY} lacks sklearn/xgboost (apt-get install python3-sklearn python3-xgboost)`);
}

function exists(p: string): boolean {
  try {
    Deno.statSync(p);
    return true;
  } catch {
    return false;
  }
}

function matrixCsv(X: Matrix): string {
  const lines = [X.names.map((_, j) => `f${j}`).join(",")];
  for (let i = 0; i < X.nRows; i++) {
    lines.push(X.columns.map((c) => (Number.isNaN(c[i]!) ? "" : String(c[i]!))).join(","));
  }
  return lines.join("\n") + "\n";
}

function readPred(path: string, task: Task, k: number): Prediction {
  const rows = Deno.readTextFileSync(path).trim().split("\n");
  const values = Float64Array.from(rows.flatMap((r) => r.split(",").map(Number)));
  return { task, k, values };
}

type Scores = { main: number; second: number; fitMs: number };
interface Result {
  name: string;
  task: Task;
  nTrain: number;
  p: number;
  metrics: [MetricName, MetricName];
  ours: Scores[];
  sklearn: Scores[];
  xgboost: Scores[];
  linear: Scores[];
  skLinear: Scores[];
}

const results: Result[] = [];
for (const d of index) {
  const table = readCsvFile(d.file);
  const target = makeTarget(table, d.target);
  const metrics: [MetricName, MetricName] = target.task === "regression"
    ? ["r2", "rmse"]
    : ["accuracy", "auc"];
  const res: Result = {
    name: d.name,
    task: target.task,
    nTrain: 0,
    p: 0,
    metrics,
    ours: [],
    sklearn: [],
    xgboost: [],
    linear: [],
    skLinear: [],
  };
  for (let seed = 0; seed < Math.min(seeds, d.seeds ?? seeds); seed++) {
    const splits = makeSplits(target, { seed, folds: 2, heldoutFraction: 0, testFraction: 0.3 });
    const enc = fitEncoding(table, splits.dev, target, {});
    const Xtr = applyEncodingToTrain(enc, table, splits.dev, target);
    const Xte = applyEncoding(enc, table, splits.test);
    const ytr = Float64Array.from(splits.dev, (r) => target.y[r]!);
    const yte = Float64Array.from(splits.test, (r) => target.y[r]!);
    [res.nTrain, res.p] = [Xtr.nRows, Xtr.names.length];
    const params = { stages, maxDepth: depth, learningRate: lr, seed };
    let best = Infinity;
    const run = { threads: num(opt.threads) };
    let model = fitGbdt(Xtr, ytr, target.task, target.classes, params, run);
    for (let r = 0; r < repeats; r++) {
      const t = performance.now();
      model = fitGbdt(Xtr, ytr, target.task, target.classes, params, run);
      best = Math.min(best, performance.now() - t);
    }
    const scoreOf = (pred: Prediction, fitMs: number): Scores => ({
      main: score(metrics[0], yte, pred),
      second: score(metrics[1], yte, pred),
      fitMs,
    });
    res.ours.push(scoreOf(predictGbdt(model, Xte), best));
    const alpha = num(opt.alpha);
    let lin = fitLinear(Xtr, ytr, target.task, target.classes, { alpha }), linBest = Infinity;
    for (let r = 0; r < repeats; r++) {
      const t = performance.now();
      lin = fitLinear(Xtr, ytr, target.task, target.classes, { alpha });
      linBest = Math.min(linBest, performance.now() - t);
    }
    res.linear.push(scoreOf(predictLinear(lin, Xte), linBest));
    if (!refOk) continue;
    const dir = Deno.makeTempDirSync({ prefix: "bench_tabular_" });
    try {
      Deno.writeTextFileSync(`${dir}/train_X.csv`, matrixCsv(Xtr));
      Deno.writeTextFileSync(`${dir}/test_X.csv`, matrixCsv(Xte));
      Deno.writeTextFileSync(`${dir}/train_y.csv`, "y\n" + Array.from(ytr).join("\n") + "\n");
      const cfg = {
        task: target.task,
        stages,
        max_depth: depth,
        learning_rate: lr,
        repeats,
        threads: num(opt.threads),
        alpha: num(opt.alpha),
      };
      Deno.writeTextFileSync(`${dir}/config.json`, JSON.stringify(cfg));
      const script = new URL("./bench/gbm_ref.py", import.meta.url).pathname;
      const out = await new Deno.Command(PY, { args: [script, dir], stdout: "piped", stderr: "piped" })
        .output();
      if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
      const ref = JSON.parse(new TextDecoder().decode(out.stdout));
      const k = target.task === "multiclass" ? target.classes.length : 1;
      for (const lib of ["sklearn", "xgboost"] as const) {
        res[lib].push(scoreOf(readPred(ref[lib].pred, target.task, k), ref[lib].fit_s * 1000));
      }
      res.skLinear.push(scoreOf(readPred(ref.linear.pred, target.task, k), ref.linear.fit_s * 1000));
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  }
  results.push(res);
  console.error(`done ${d.name}`);
}

closeGbdtThreads();
const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const f4 = (x: number) => (Number.isFinite(x) ? x.toFixed(4) : "–");
const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : "–");
console.log(
  `GBDT benchmark: ${stages} stages, depth ${depth}, learning rate ${lr}; ${seeds} seeded 70/30 splits, ` +
    `fit time = best of ${repeats}, mean over seeds; ours and XGBoost hist with ${opt.threads} thread(s)\n`,
);
console.log(
  "| dataset | task | train rows × features | metric | ours | sklearn | xgboost | 2nd metric | ours | sklearn | xgboost | fit ms ours | sklearn | xgboost | goals |",
);
console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
for (const r of results) {
  const m = (s: Scores[], k: keyof Scores) => (s.length ? mean(s.map((x) => x[k])) : NaN);
  const [o, sk, xg] = [r.ours, r.sklearn, r.xgboost];
  const goals: string[] = [];
  if (sk.length) {
    const dm = m(o, "main") - m(sk, "main"), ds = m(o, "second") - m(sk, "second");
    const lowerBetter = r.metrics[1] === "rmse";
    const okQ = dm >= -0.01 && (lowerBetter ? true : ds >= -0.01);
    goals.push(
      `sk ${okQ ? "quality ✓" : "quality ✗"} ${m(o, "fitMs") <= m(sk, "fitMs") ? "time ✓" : "time ✗"}`,
    );
    const dx = m(o, "main") - m(xg, "main");
    goals.push(
      `xgb ${dx >= -0.01 ? "quality ✓" : "quality ✗"} ${
        m(o, "fitMs") <= 3 * m(xg, "fitMs") ? "time ✓" : "time ✗"
      }`,
    );
  }
  console.log(
    `| ${r.name} | ${r.task} | ${r.nTrain} × ${r.p} | ${r.metrics[0]} | ${f4(m(o, "main"))} | ${
      f4(m(sk, "main"))
    } | ${f4(m(xg, "main"))} | ${r.metrics[1]} | ${f4(m(o, "second"))} | ${f4(m(sk, "second"))} | ${
      f4(m(xg, "second"))
    } | ${ms(m(o, "fitMs"))} | ${ms(m(sk, "fitMs"))} | ${ms(m(xg, "fitMs"))} | ${goals.join("; ")} |`,
  );
}
console.log(
  `\nLinear model (alpha ${opt.alpha}) beside the GBDT above and scikit-learn's Ridge / LogisticRegression(C = 1/alpha)\n`,
);
console.log(
  "| dataset | metric | linear | GBDT | sklearn linear | linear − GBDT | 2nd metric | linear | sklearn linear | fit ms linear | sklearn linear |",
);
console.log("|---|---|---|---|---|---|---|---|---|---|---|");
for (const r of results) {
  const m = (s: Scores[], k: keyof Scores) => (s.length ? mean(s.map((x) => x[k])) : NaN);
  const [l, o, sl] = [r.linear, r.ours, r.skLinear];
  console.log(
    `| ${r.name} | ${r.metrics[0]} | ${f4(m(l, "main"))} | ${f4(m(o, "main"))} | ${f4(m(sl, "main"))} | ${
      f4(m(l, "main") - m(o, "main"))
    } | ${r.metrics[1]} | ${f4(m(l, "second"))} | ${f4(m(sl, "second"))} | ${ms(m(l, "fitMs"))} | ${
      ms(m(sl, "fitMs"))
    } |`,
  );
}
if (opt.json) {
  Deno.mkdirSync(opt.json.replace(/\/[^/]*$/, "") || ".", { recursive: true });
  Deno.writeTextFileSync(
    opt.json,
    JSON.stringify({ stages, depth, lr, seeds, repeats, results }, null, 2) + "\n",
  );
}
