/**
 * Two-thread fits against one-thread fits, byte for byte: seeded cases large enough that many nodes, the
 * partitions, the gradients and the score updates are split between the threads, across every task and the
 * options that change the fill (the count channel, column sampling, row subsampling, 32-bit slots).
 *
 * @module
 */
import { deepEqual } from "node:assert/strict";
import type { Matrix } from "./encode.ts";
import { closeGbdtThreads, fitGbdt, type GbdtParams, predictGbdt } from "./gbdt.ts";
import { binTraining } from "./gbdt_bins.ts";
import { addLeaves, fill2, fill3, fillSome, partitionRows } from "./gbdt_kernels.ts";
import { gradients } from "./gbdt_loss.ts";
import { ParallelFit } from "./gbdt_threads.ts";
import type { BinTree } from "./gbdt_tree.ts";
import { mulberry32 } from "./prng.ts";
import type { Task } from "./target.ts";

interface Case {
  task: Task;
  n: number;
  p: number;
  seed: number;
  params: Partial<GbdtParams>;
}

/**
 * n rows of p features: x0 with 20 % missing, x1 with 7 levels, the rest uniform; y mixes every feature (the
 * later ones most), so the splits read both threads' halves of the features.
 */
function data(c: Case): { X: Matrix; y: Float64Array; classes: string[] } {
  const rng = mulberry32(c.seed);
  const columns = Array.from({ length: c.p }, () => new Float64Array(c.n));
  const y = new Float64Array(c.n);
  for (let i = 0; i < c.n; i++) {
    let s = rng() - 0.5;
    for (let j = 0; j < c.p; j++) {
      const x = columns[j]![i] = j === 1 ? Math.floor(rng() * 7) - 3 : rng() * 2 - 1;
      s += Math.sin((j % 5 + 1) * x) * (j + 1) / c.p;
    }
    if (rng() < 0.2) columns[0]![i] = NaN;
    y[i] = c.task === "regression"
      ? s
      : c.task === "binary"
      ? (s > 0.1 ? 1 : 0)
      : s < -0.4
      ? 0
      : s < 0.4
      ? 1
      : 2;
  }
  const classes = c.task === "regression" ? [] : c.task === "binary" ? ["0", "1"] : ["a", "b", "c"];
  return { X: { names: columns.map((_, j) => `x${j}`), columns, nRows: c.n }, y, classes };
}

function fitBytes(c: Case, threads: number): string {
  const { X, y, classes } = data(c);
  const model = fitGbdt(X, y, c.task, classes, c.params, { threads });
  const pred = predictGbdt(model, X).values;
  return JSON.stringify(model) + Array.from(new Uint8Array(pred.buffer)).join(",");
}

const CASES: Record<string, Case> = {
  "binary with missing values": {
    task: "binary",
    n: 12000,
    p: 9,
    seed: 1,
    params: { stages: 12, maxDepth: 5 },
  },
  "regression": { task: "regression", n: 10000, p: 7, seed: 2, params: { stages: 10, maxDepth: 4, l2: 0.5 } },
  "multiclass": { task: "multiclass", n: 9000, p: 8, seed: 3, params: { stages: 6, maxDepth: 4 } },
  "minSamplesLeaf > 1 (count channel)": {
    task: "binary",
    n: 10000,
    p: 6,
    seed: 4,
    params: { stages: 10, maxDepth: 5, minSamplesLeaf: 7 },
  },
  "colsample": {
    task: "multiclass",
    n: 9000,
    p: 11,
    seed: 5,
    params: { stages: 6, maxDepth: 4, colsample: 0.6, minSamplesLeaf: 3, seed: 6 },
  },
  "subsample and colsample": {
    task: "regression",
    n: 10000,
    p: 10,
    seed: 7,
    params: { stages: 8, maxDepth: 6, subsample: 0.7, colsample: 0.3, seed: 8 },
  },
  "early stopping": {
    task: "binary",
    n: 10000,
    p: 5,
    seed: 9,
    params: { stages: 30, validationFraction: 0.2, earlyStoppingRounds: 3, learningRate: 0.5 },
  },
  "one feature per tree": {
    task: "binary",
    n: 6000,
    p: 4,
    seed: 10,
    params: { stages: 8, maxDepth: 3, colsample: 0.25 },
  },
  "wide (32-bit slots)": { task: "binary", n: 3000, p: 270, seed: 11, params: { stages: 3, maxDepth: 3 } },
};

for (const [name, c] of Object.entries(CASES)) {
  Deno.test(`fitGbdt() on two threads fits the same bytes as on one: ${name}`, () => {
    try {
      deepEqual(fitBytes(c, 2), fitBytes(c, 1));
    } finally {
      closeGbdtThreads();
    }
  });
}

Deno.test("ParallelFit splits binning, fills, partitions, gradients and score updates with one thread's exact bits", () => {
  const c: Case = { task: "multiclass", n: 20000, p: 9, seed: 12, params: {} };
  const { X, y } = data(c);
  const K = 3, n = c.n, rng = mulberry32(13);
  const par = new ParallelFit(X, 255, y, "multiclass", K, n, 64, false);
  try {
    const { edges, data: bins } = binTraining(X, 255);
    deepEqual([par.edges, par.data], [edges, bins]);
    const F = Float64Array.from({ length: n * K }, () => rng() * 4 - 2);
    par.F.set(F);
    par.gradients();
    const gh = Array.from({ length: K }, () => new Float64Array(2 * n));
    gradients("multiclass", y, F, K, gh);
    deepEqual(par.gh, gh);
    // A node's rows: every third row, in order, as a partition leaves them.
    const rows = Int32Array.from({ length: n }, (_, i) => i).filter((r) => r % 3 !== 1);
    par.idx.set(rows);
    const one = new Int32Array(n);
    one.set(rows);
    const [start, end] = [100, rows.length - 50];
    const feats = Int32Array.from([0, 2, 3, 5, 8]);
    for (const [ch, fs] of [[2, null], [3, null], [2, feats], [3, feats]] as const) {
      const size = bins.offset[bins.p]! * ch;
      const [a, b] = [new Float64Array(size), new Float64Array(size)];
      par.fill(a, par.gh[1]!, start, end, ch, fs);
      if (fs) fillSome(b, bins.slots, bins.p, gh[1]!, one, start, end, fs, 0, fs.length, ch);
      else (ch === 3 ? fill3 : fill2)(b, bins.slots, bins.p, gh[1]!, one, start, end, 0, bins.p);
      deepEqual(a, b, `${ch} channels, ${fs ? "some" : "all"} features`);
    }
    for (
      const [f, bin, missingLeft] of [[0, 100, true], [0, 30, false], [1, 3, false], [8, 200, true]] as const
    ) {
      const mid = par.partition(f, bin, missingLeft, start, end);
      const s = partitionRows(
        bins.cols[f]!,
        bins.nBins[f]!,
        bin,
        missingLeft,
        one,
        new Int32Array(n),
        new Uint8Array(256),
        start,
        end,
      );
      deepEqual([mid, par.idx], [start + s, one], `feature ${f}`);
    }
    const tree = {
      leafStart: [0, 7000, 9000],
      leafEnd: [7000, 9000, n - 10],
      leafValue: [0.5, -0.25, 0.125],
    };
    par.addLeaves(tree as BinTree, 2);
    addLeaves(F, K, 2, one, tree.leafStart, tree.leafEnd, tree.leafValue, 3, 0, n);
    deepEqual(par.F, F);
  } finally {
    par.release();
    closeGbdtThreads();
  }
});
