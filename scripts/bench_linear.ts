/**
 * The linear model's log-loss solvers side by side: Newton's method (dense K·d Hessian) and L-BFGS, one fit
 * each at α = 1 on synthetic designs from small to large, with the largest difference in their predicted
 * probabilities; then the tuned fit (`tune: 3`, what the tree's library tries first) as `fitLinear` runs it,
 * which picks the solver by NEWTON_WORK. Then, on the prepared public datasets (dist/datasets, when
 * scripts/datasets/prepare.ts has made them), the tuned strength's inner search as it runs (stopped
 * TUNE_PATIENCE strengths past the best) against the whole path: the strength each chose, the strengths fit
 * and the time. Prints tables; nothing is asserted (the tests pin agreement).
 *
 *   deno task bench:linear [--newton-max 2e9]
 *
 * @module
 */
import { lbfgs, logistic, NEWTON_WORK, probs } from "../src/tabular/linear_solve.ts";
import { fitLinear, TUNE_ALPHAS, tuneStrength } from "../src/tabular/linear.ts";
import { readTable } from "../src/tabular/read.ts";
import { makeTarget } from "../src/tabular/target.ts";
import { applyEncodingToTrain, fitEncoding } from "../src/tabular/encode.ts";
import { DATASETS } from "./datasets/catalog.ts";
import { mulberry32 } from "../src/tabular/prng.ts";

const args = Deno.args;
if (args.includes("--help")) {
  console.log(
    "Usage: deno task bench:linear [--newton-max W]\n\nTimes the linear model's Newton and L-BFGS solvers " +
      "on synthetic designs and the tuned fit;\nNewton is skipped where n·(K·d)² exceeds W (default 2e9: minutes).",
  );
  Deno.exit(0);
}
const at = args.indexOf("--newton-max");
const newtonMax = at >= 0 ? Number(args[at + 1]) : 2e9;
if (!(newtonMax > 0)) {
  console.error("bench:linear: --newton-max needs a positive number");
  Deno.exit(2);
}

function design(n: number, d: number, K: number) {
  const r = mulberry32(n + 7 * d + K);
  const A = new Float64Array(n * d);
  for (let i = 0; i < n; i++) {
    A[i * d] = 1;
    for (let a = 1; a < d; a++) A[i * d + a] = r() * 2 - 1;
  }
  const y = Float64Array.from({ length: n }, (_, i) => {
    const s = 2 * A[i * d + 1]! + A[i * d + 2]! + (r() - 0.5);
    return K === 1 ? (s > 0 ? 1 : 0) : Math.min(K - 1, Math.max(0, Math.floor(((s + 3) / 6) * K)));
  });
  return { A, y };
}

const timed = <T>(f: () => T): [T, number] => {
  const t = performance.now();
  const v = f();
  return [v, performance.now() - t];
};

console.log(`NEWTON_WORK ${NEWTON_WORK.toExponential(0)} (fitLinear uses L-BFGS above it)\n`);
console.log(
  "| rows | d | K | n·(K·d)² | Newton ms (its) | L-BFGS ms (its) | max |Δp| | tuned fitLinear ms |",
);
console.log("|---|---|---|---|---|---|---|---|");
for (
  const [n, p, K] of [[300, 8, 3], [1500, 20, 4], [5000, 30, 1], [5000, 50, 10], [20000, 100, 1], [
    20000,
    40,
    7,
  ]]
) {
  const d = p! + 1;
  const { A, y } = design(n!, d, K!);
  const work = n! * (K! * d) ** 2;
  const problem = { A, y, n: n!, d, K: K!, alpha: 1, interceptPenalty: K! > 1 ? 1e-8 : 0 };
  const [lb, lbMs] = timed(() => lbfgs(problem));
  let newton = "skipped", gap = "";
  if (work <= newtonMax) {
    const [nw, nwMs] = timed(() => logistic(problem));
    newton = `${nwMs.toFixed(0)} (${nw.iterations})`;
    const P = new Float64Array(Math.max(K!, 2)), Q = new Float64Array(Math.max(K!, 2));
    let g = 0;
    for (let i = 0; i < n!; i++) {
      probs(A, nw.beta, i, d, K!, P);
      probs(A, lb.beta, i, d, K!, Q);
      for (let k = 0; k < K!; k++) g = Math.max(g, Math.abs(P[k]! - Q[k]!));
    }
    gap = g.toExponential(1);
  }
  const columns = Array.from(
    { length: p! },
    (_, j) => Float64Array.from({ length: n! }, (_, i) => A[i * d + 1 + j]!),
  );
  const X = { names: columns.map((_, j) => `x${j}`), columns, nRows: n! };
  const classes = K! > 1 ? Array.from({ length: K! }, (_, k) => `c${k}`) : ["0", "1"];
  const [, tunedMs] = timed(() =>
    fitLinear(X, y, K! > 1 ? "multiclass" : "binary", classes, { alpha: 1, tune: 3 })
  );
  console.log(
    `| ${n} | ${d} | ${K} | ${work.toExponential(1)} | ${newton} | ${
      lbMs.toFixed(0)
    } (${lb.iterations}) | ${gap} | ${tunedMs.toFixed(0)} |`,
  );
}

const dir = new URL("../dist/datasets/", import.meta.url);
let have = true;
try {
  Deno.statSync(new URL("index.json", dir));
} catch {
  have = false;
  console.log("\nNo dist/datasets: run scripts/datasets/prepare.ts for the real-data table.");
}
if (have) {
  console.log(
    `\nTuned strength (tune: 3) on 60 % samples of the prepared datasets, ${TUNE_ALPHAS.length} strengths:` +
      " the inner search stopped past the best against the whole path\n",
  );
  console.log("| dataset | rows | d | task | stopped: α (fits, ms) | whole path: α (fits, ms) |");
  console.log("|---|---|---|---|---|---|");
  const sum = { same: 0, runs: 0, fits: [0, 0], ms: [0, 0] };
  for (const { name, target: column } of DATASETS) {
    let text: string;
    try {
      text = Deno.readTextFileSync(new URL(`${name}.csv`, dir));
    } catch {
      continue;
    }
    const table = readTable(text, name), target = makeTarget(table, column);
    const usable = [...Array(table.nRows).keys()].filter((i) => Number.isFinite(target.y[i]!));
    for (let rep = 0; rep < (table.nRows > 10_000 ? 1 : 3); rep++) {
      const r = mulberry32(rep + 1), rows = Int32Array.from(usable.filter(() => r() < 0.6));
      const X = applyEncodingToTrain(fitEncoding(table, rows, target), table, rows, target);
      const y = Float64Array.from(rows, (i) => target.y[i]!), classes = target.classes ?? [];
      const [a, aMs] = timed(() => tuneStrength(X, y, target.task, classes, 3));
      const [b, bMs] = timed(() => tuneStrength(X, y, target.task, classes, 3, Infinity));
      sum.runs += 1, sum.same += a.alpha === b.alpha ? 1 : 0;
      sum.fits[0]! += a.tried, sum.fits[1]! += b.tried, sum.ms[0]! += aMs, sum.ms[1]! += bMs;
      console.log(
        `| ${name} | ${rows.length} | ${X.columns.length} | ${target.task} | ${a.alpha} (${a.tried}, ${
          aMs.toFixed(0)
        }) | ${b.alpha} (${b.tried}, ${bMs.toFixed(0)}) |`,
      );
    }
  }
  console.log(
    `\nSame strength ${sum.same} of ${sum.runs}; strengths fit ${sum.fits[0]} against ${sum.fits[1]}; ` +
      `${sum.ms[0]!.toFixed(0)} ms against ${sum.ms[1]!.toFixed(0)} ms.`,
  );
}
