/**
 * The real path's data: the seeded default data set (400 rows, 7 features, a non-linear target with noise),
 * the seeded train/dev/test split, and loading both back by split. Generation uses only +, −, ×, comparisons
 * and `toFixed`, all exact in IEEE arithmetic, so the bytes are the same on every machine; the files, not
 * the generator, are what everything downstream reads and hashes.
 *
 * @module
 */
import { parseNumericCsv } from "../../tabular/numeric.ts";

/** sfc32, seeded through splitmix32: a small, well-mixed 32-bit generator. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  const mix = () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let [a, b, c, d] = [mix(), mix(), mix(), 1];
  const next = () => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  return next;
}

const fmt = (v: number, digits: number) => {
  const s = v.toFixed(digits);
  return /^-0\.0*$/.test(s) ? s.slice(1) : s;
};

export const FEATURES = ["x1", "x2", "x3", "x4", "x5", "x6", "x7"];
export const TARGET = "y";

/**
 * The default data set: features uniform on [−1, 1]; y = 1.2·x1 + 0.8·x2 + 2·[x3 > 0.2] + 2.5·x4·[x5 > 0]
 * + 0.4·ε, with ε an Irwin–Hall(12) − 6 draw (≈ N(0, 1)). x6 and x7 are pure distractors. A linear model
 * gets the slopes but misses the step and the gated slope; trees get both.
 */
export function generateCsv(seed: number, rows = 400): string {
  const next = rng(seed);
  const lines = [[...FEATURES, TARGET].join(",")];
  for (let i = 0; i < rows; i++) {
    const x = FEATURES.map(() => Number(fmt(next() * 2 - 1, 4)));
    let eps = -6;
    for (let k = 0; k < 12; k++) eps += next();
    const [x1, x2, x3, x4, x5] = x as [number, number, number, number, number];
    const y = 1.2 * x1 + 0.8 * x2 + (x3 > 0.2 ? 2 : 0) + (x5 > 0 ? 2.5 * x4 : 0) + 0.4 * eps;
    lines.push([...x.map((v) => fmt(v, 4)), fmt(y, 4)].join(","));
  }
  return lines.join("\n") + "\n";
}

export interface Split {
  seed: number;
  target: string;
  features: string[];
  rows: number;
  train: number[];
  dev: number[];
  test: number[];
  /** The CSV's delimiter when it is not a comma (`arrow run --data f.csv --delimiter ';'`); absent: ",". */
  delimiter?: string;
}

/** A seeded shuffle of the row indices cut 60/20/20 into train, dev and test (each part sorted). */
export function makeSplit(
  rows: number,
  seed: number,
  target: string,
  features: string[],
  delimiter = ",",
): Split {
  const next = rng(seed ^ 0x5eed5);
  const idx = Array.from({ length: rows }, (_, i) => i);
  for (let i = rows - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [idx[i], idx[j]] = [idx[j]!, idx[i]!];
  }
  const nTrain = Math.round(rows * 0.6);
  const nDev = Math.round(rows * 0.2);
  const part = (a: number, b: number) => idx.slice(a, b).sort((p, q) => p - q);
  return {
    seed,
    target,
    features,
    rows,
    train: part(0, nTrain),
    dev: part(nTrain, nTrain + nDev),
    test: part(nTrain + nDev, rows),
    ...(delimiter !== "," ? { delimiter } : {}),
  };
}

/**
 * split.json bytes: one line, fixed key order, so its sha256 is the split_hash. A delimiter other than a
 * comma is written last, so a comma file's split (and its hash) is what it always was.
 */
export function splitJson(s: Split): string {
  return JSON.stringify({
    seed: s.seed,
    target: s.target,
    features: s.features,
    rows: s.rows,
    train: s.train,
    dev: s.dev,
    test: s.test,
    ...(s.delimiter && s.delimiter !== "," ? { delimiter: s.delimiter } : {}),
  }) + "\n";
}

export interface Dataset {
  features: string[];
  target: string;
  /** Feature rows and targets of each part. */
  train: { X: number[][]; y: number[] };
  dev: { X: number[][]; y: number[] };
  test: { X: number[][]; y: number[] };
}

/** Reads a data CSV and its split file into train/dev/test matrices. */
export function loadDataset(csvPath: string, splitPath: string): Dataset {
  const split = JSON.parse(Deno.readTextFileSync(splitPath)) as Split;
  const table = parseNumericCsv(Deno.readTextFileSync(csvPath), csvPath, split.delimiter ?? ",");
  if (split.rows !== table.rows.length) {
    throw new RangeError(
      `Cannot use ${splitPath}: it splits ${split.rows} rows, ${csvPath} has ${table.rows.length}`,
    );
  }
  const col = (name: string) => {
    const j = table.columns.indexOf(name);
    if (j < 0) throw new RangeError(`Cannot use ${csvPath}: no column "${name}"`);
    return j;
  };
  const fj = split.features.map(col);
  const tj = col(split.target);
  const part = (rows: number[]) => ({
    X: rows.map((i) => fj.map((j) => table.rows[i]![j]!)),
    y: rows.map((i) => table.rows[i]![tj]!),
  });
  return {
    features: split.features,
    target: split.target,
    train: part(split.train),
    dev: part(split.dev),
    test: part(split.test),
  };
}
