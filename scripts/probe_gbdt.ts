/**
 * A quick GBDT timing probe: the same seeded 100,000-row synthetic table that `bench:tabular` times (20
 * uniform features, 10 % of x0 missing, XOR of the signs of x0 and x1 with 10 % label noise), the same 70/30
 * split and encoding, then `--repeats` fits with the bench's parameters. Prints each fit's milliseconds, their
 * median and a digest of the model JSON, so a speed-up can be timed and shown not to change the model.
 *
 * `deno run -A scripts/probe_gbdt.ts [--rows 100000] [--repeats 5] [--stages 100] [--depth 3] [--lr 0.1]`
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  applyEncodingToTrain,
  fitEncoding,
  fitGbdt,
  makeSplits,
  makeTarget,
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

const times: number[] = [];
let json = "";
for (let r = 0; r <= repeats; r++) {
  const t = performance.now();
  const model = fitGbdt(X, y, target.task, target.classes, params);
  const ms = performance.now() - t;
  if (r > 0) times.push(ms); // the first fit warms the JIT up
  json = JSON.stringify(model);
}
const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(json)));
const hex = Array.from(digest.slice(0, 16), (b) => b.toString(16).padStart(2, "0")).join("");
const sorted = [...times].sort((a, b) => a - b);
console.log(
  `${X.nRows} rows × ${X.names.length}: fit ms ${times.map((t) => t.toFixed(0)).join(" ")}; ` +
    `median ${sorted[sorted.length >> 1]!.toFixed(0)}, min ${sorted[0]!.toFixed(0)}; model ${hex}`,
);
