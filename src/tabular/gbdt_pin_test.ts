/**
 * Pins fitted GBDT models bit for bit: for seeded datasets and parameter sets that reach every path of the
 * fit (unit and varying hessians, the count channel, subsampling, column sampling, early stopping, depth 1,
 * missing values, low-cardinality and constant features, wide data with 32-bit slots), the SHA-256 of the
 * model JSON and of the prediction bytes must stay as recorded. A speed-up that changes any split, leaf value
 * or summation order changes a digest.
 *
 * @module
 */
import { deepEqual, ok } from "node:assert/strict";
import type { Matrix } from "./encode.ts";
import { closeGbdtThreads, fitGbdt, type GbdtParams, predictGbdt } from "./gbdt.ts";
import { mulberry32 } from "./prng.ts";
import type { Task } from "./target.ts";

interface Case {
  name: string;
  task: Task;
  n: number;
  p: number;
  seed: number;
  params: Partial<GbdtParams>;
}

/** n rows of p features: x0 with 15 % missing, x1 with 5 levels, x2 constant, the rest uniform in [−1, 1]. */
function data(c: Case): { X: Matrix; y: Float64Array; classes: string[] } {
  const rng = mulberry32(c.seed);
  const columns = Array.from({ length: c.p }, () => new Float64Array(c.n));
  const y = new Float64Array(c.n);
  for (let i = 0; i < c.n; i++) {
    for (let j = 0; j < c.p; j++) columns[j]![i] = rng() * 2 - 1;
    columns[1]![i] = Math.floor(rng() * 5);
    columns[2]![i] = 0.25;
    const x0 = columns[0]![i]!, x1 = columns[1]![i]!, x3 = columns[3]![i]!;
    const noise = rng() - 0.5;
    if (rng() < 0.15) columns[0]![i] = NaN;
    const s = Math.sin(3 * x0) + 0.3 * x1 - x3 * x3 + noise;
    y[i] = c.task === "regression"
      ? s
      : c.task === "binary"
      ? (s > 0.2 ? 1 : 0)
      : s < -0.3
      ? 0
      : s < 0.6
      ? 1
      : 2;
  }
  const classes = c.task === "regression" ? [] : c.task === "binary" ? ["0", "1"] : ["a", "b", "c"];
  return { X: { names: columns.map((_, j) => `x${j}`), columns, nRows: c.n }, y, classes };
}

const CASES: Case[] = [
  { name: "binary", task: "binary", n: 3000, p: 8, seed: 1, params: { stages: 30, maxDepth: 4 } },
  {
    name: "regression subsample",
    task: "regression",
    n: 2500,
    p: 6,
    seed: 2,
    params: { stages: 25, maxDepth: 5, subsample: 0.7, l2: 0.5, seed: 3 },
  },
  {
    name: "multiclass colsample count channel",
    task: "multiclass",
    n: 2000,
    p: 7,
    seed: 4,
    params: { stages: 15, maxDepth: 3, colsample: 0.6, minSamplesLeaf: 5, maxBins: 32, seed: 5 },
  },
  {
    name: "binary early stopping",
    task: "binary",
    n: 2000,
    p: 5,
    seed: 6,
    params: {
      stages: 60,
      validationFraction: 0.2,
      earlyStoppingRounds: 5,
      minChildWeight: 1,
      learningRate: 0.3,
    },
  },
  {
    name: "regression min leaf colsample subsample",
    task: "regression",
    n: 1500,
    p: 9,
    seed: 7,
    params: { stages: 20, maxDepth: 6, minSamplesLeaf: 10, colsample: 0.5, subsample: 0.5, seed: 8 },
  },
  { name: "depth 1", task: "binary", n: 1000, p: 4, seed: 9, params: { stages: 20, maxDepth: 1 } },
  { name: "wide", task: "binary", n: 400, p: 260, seed: 10, params: { stages: 5, maxDepth: 3 } },
];

/** Digests recorded before the histogram loop was optimised. */
const PINNED: Record<string, string> = {
  "binary": "5973a6be62e8ecf551df97a9e18448ee:8fc523f0a9b90a695023b798f8a79f53",
  "regression subsample": "95110992c7d36b49c321e5ddcc270836:970d6a2c2c5d847d0d7dd8fb7297de6a",
  "multiclass colsample count channel": "08f88495c16055165a8b0a381a4425e3:13f23765920b727c0b55a0604daf15f1",
  "binary early stopping": "a445d6ca370696aa108e84eb49c10069:e4eda9686409f31aaff8d9f042cee2b5",
  "regression min leaf colsample subsample":
    "f52ac160601a03994941b2eb35b3532c:f3b2a4945db97686c3dc4a86dc8274d1",
  "depth 1": "7e87bb40e3c132b9d57d7aeeb2e725ca:56e395e063c7e1dcb9e7f046137b1512",
  "wide": "fcc66789e9c0585a03d28278f838683c:f2fb96932d4fe2a1f853baea495ff273",
};

async function sha256(bytes: Uint8Array): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(d), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function digest(c: Case, threads = 1): Promise<{ digest: string; stagesRun?: number }> {
  const { X, y, classes } = data(c);
  const model = fitGbdt(X, y, c.task, classes, c.params, { threads });
  const pred = predictGbdt(model, X).values;
  const json = await sha256(new TextEncoder().encode(JSON.stringify(model)));
  const bytes = await sha256(new Uint8Array(pred.buffer, pred.byteOffset, pred.byteLength));
  return { digest: `${json.slice(0, 32)}:${bytes.slice(0, 32)}`, stagesRun: model.validation?.stagesRun };
}

Deno.test("fitGbdt() models and predictions are bit-identical to the pinned digests", async () => {
  const got: Record<string, string> = {};
  for (const c of CASES) {
    const d = await digest(c);
    got[c.name] = d.digest;
    // The early-stopping case must really stop early, or it pins nothing about stopping.
    if (c.params.earlyStoppingRounds) ok(d.stagesRun! < c.params.stages!, `ran ${d.stagesRun} stages`);
  }
  if (Deno.env.get("GBDT_PIN_PRINT")) console.log(JSON.stringify(got, null, 2));
  deepEqual(got, PINNED);
});

Deno.test("fitGbdt() on two threads fits the same bits as on one", async () => {
  try {
    for (const c of CASES) {
      if (c.params.colsample || c.n * (1 - (c.params.validationFraction ?? 0)) < 2048) continue;
      deepEqual((await digest(c, 2)).digest, PINNED[c.name], c.name);
    }
    const big: Case = {
      name: "big",
      task: "multiclass",
      n: 9000,
      p: 11,
      seed: 12,
      params: { stages: 8, maxDepth: 4, minSamplesLeaf: 3 },
    };
    const regression: Case = {
      ...big,
      name: "big regression",
      task: "regression",
      params: { stages: 8, subsample: 0.8 },
    };
    for (const c of [big, regression]) {
      deepEqual((await digest(c, 2)).digest, (await digest(c, 1)).digest, c.name);
    }
  } finally {
    closeGbdtThreads();
  }
});
