/**
 * A quick GBDT timing probe: the same seeded 100,000-row synthetic table that `bench:tabular` times (20
 * uniform features, 10 % of x0 missing, XOR of the signs of x0 and x1 with 10 % label noise), the same 70/30
 * split and encoding, then `--repeats` fits with the bench's parameters. Prints each fit's milliseconds, their
 * median and a digest of the model JSON, so a speed-up can be timed and shown not to change the model. With
 * `--xgboost`, each of our fits is followed at once by an XGBoost hist fit with the same threads (one python
 * process kept open, timing `fit` alone), and the median of the paired ratios ours/XGBoost is printed: on a
 * shared machine, pairs back to back drift less than two separate runs.
 *
 * `deno run -A scripts/probe_gbdt.ts [--rows 100000] [--repeats 5] [--stages 100] [--depth 3] [--lr 0.1]
 * [--threads 1] [--xgboost]`
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  applyEncodingToTrain,
  closeGbdtThreads,
  fitEncoding,
  fitGbdt,
  makeSplits,
  makeTarget,
  type Matrix,
  mulberry32,
  readCsvFile,
} from "../src/tabular/mod.ts";

const { values: opt } = parseArgs({
  args: Deno.args,
  options: {
    rows: { type: "string", default: "100000" },
    repeats: { type: "string", default: "5" },
    stages: { type: "string", default: "100" },
    depth: { type: "string", default: "3" },
    lr: { type: "string", default: "0.1" },
    threads: { type: "string", default: "1" },
    xgboost: { type: "boolean", default: false },
  },
});
const n = Number(opt.rows), repeats = Number(opt.repeats);

const rng = mulberry32(2024);
const lines = [[...Array.from({ length: 20 }, (_, j) => `x${j}`), "y"].join(",")];
for (let i = 0; i < n; i++) {
  const x = Array.from({ length: 20 }, () => rng() * 2 - 1);
  const y = (x[0]! > 0) !== (x[1]! > 0) !== (rng() < 0.1) ? "1" : "0";
  const cells = x.map((v) => v.toFixed(5));
  if (rng() < 0.1) cells[0] = "";
  lines.push([...cells, y].join(","));
}
const file = await Deno.makeTempFile({ suffix: ".csv" });
Deno.writeTextFileSync(file, lines.join("\n") + "\n");
const table = readCsvFile(file);
Deno.removeSync(file);
const target = makeTarget(table, "y");
const splits = makeSplits(target, { seed: 0, folds: 2, heldoutFraction: 0, testFraction: 0.3 });
const enc = fitEncoding(table, splits.dev, target, {});
const X = applyEncodingToTrain(enc, table, splits.dev, target);
const y = Float64Array.from(splits.dev, (r) => target.y[r]!);
const params = {
  stages: Number(opt.stages),
  maxDepth: Number(opt.depth),
  learningRate: Number(opt.lr),
  seed: 0,
};

const threads = Number(opt.threads);
const xgb = opt.xgboost ? await xgboostFitter(X, y, params, threads) : null;
const times: number[] = [], theirs: number[] = [];
let json = "";
for (let r = 0; r <= repeats; r++) {
  const t = performance.now();
  const model = fitGbdt(X, y, target.task, target.classes, params, { threads });
  const ms = performance.now() - t;
  const xms = xgb ? await xgb.fit() : NaN;
  if (r > 0) times.push(ms), theirs.push(xms); // the first round warms the JIT up
  json = JSON.stringify(model);
}
closeGbdtThreads();
await xgb?.close();
const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(json)));
const hex = Array.from(digest.slice(0, 16), (b) => b.toString(16).padStart(2, "0")).join("");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log(
  `${X.nRows} rows × ${X.names.length}, ${threads} thread(s): fit ms ${
    times.map((t) => t.toFixed(0)).join(" ")
  }; ` +
    `median ${median(times).toFixed(0)}, min ${Math.min(...times).toFixed(0)}; model ${hex}`,
);
if (xgb) {
  console.log(
    `XGBoost hist: fit ms ${theirs.map((t) => t.toFixed(0)).join(" ")}; median ${
      median(theirs).toFixed(0)
    }; ` +
      `paired ours/XGBoost median ${median(times.map((t, i) => t / theirs[i]!)).toFixed(3)}`,
  );
}

/** A python process holding the matrix, fitting XGBoost hist (the bench's settings) on each request. */
async function xgboostFitter(X: Matrix, y: Float64Array, p: typeof params, nthread: number) {
  const dir = await Deno.makeTempDir({ prefix: "probe_gbdt_" });
  const rows = [X.names.join(",")];
  for (let i = 0; i < X.nRows; i++) {
    rows.push(X.columns.map((c) => (Number.isNaN(c[i]!) ? "" : String(c[i]!))).join(","));
  }
  Deno.writeTextFileSync(`${dir}/X.csv`, rows.join("\n") + "\n");
  Deno.writeTextFileSync(`${dir}/y.csv`, Array.from(y).join("\n") + "\n");
  const py = [
    "import sys, time, numpy as np, xgboost as xgb",
    `X = np.genfromtxt("${dir}/X.csv", delimiter=",", skip_header=1, dtype=np.float64, ndmin=2)`,
    `y = np.genfromtxt("${dir}/y.csv").astype(int)`,
    'print("ready", flush=True)',
    "for line in sys.stdin:",
    `    m = xgb.XGBClassifier(tree_method="hist", n_jobs=${nthread}, random_state=0, n_estimators=${p.stages}, ` +
    `learning_rate=${p.learningRate}, max_depth=${p.maxDepth})`,
    "    t = time.perf_counter(); m.fit(X, y); print((time.perf_counter() - t) * 1000, flush=True)",
  ].join("\n");
  const exe = Deno.env.get("ARROW_PYTHON") ?? "/usr/bin/python3";
  const child = new Deno.Command(exe, { args: ["-c", py], stdin: "piped", stdout: "piped" }).spawn();
  const write = child.stdin.getWriter(), read = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  const line = async () => {
    while (!buf.includes("\n")) {
      const c = await read.read();
      if (c.done) {
        throw new Error("Cannot time XGBoost: its python process ended (python3-xgboost installed?)");
      }
      buf += c.value;
    }
    const i = buf.indexOf("\n"), v = buf.slice(0, i);
    buf = buf.slice(i + 1);
    return v;
  };
  await line();
  return {
    fit: async () => (await write.write(new TextEncoder().encode("fit\n")), Number(await line())),
    close: async () => {
      await write.close();
      await child.status;
      read.releaseLock();
      Deno.removeSync(dir, { recursive: true });
    },
  };
}
