import { deepEqual, equal, ok, throws } from "node:assert/strict";
import type { Matrix } from "./encode.ts";
import { fitGbdt, predictGbdt } from "./gbdt.ts";
import {
  fitLinear,
  type LinearModel,
  linearParams,
  predictLinear,
  TUNE_ALPHAS,
  TUNE_PATIENCE,
  tuneStrength,
} from "./linear.ts";
import { parseLinearModel } from "./linear_json.ts";
import { score } from "./metrics.ts";
import { mulberry32 } from "./prng.ts";

const matrix = (columns: Float64Array[]): Matrix => ({
  names: columns.map((_, j) => `x${j}`),
  columns,
  nRows: columns[0]!.length,
});

function data(n: number, p: number, seed: number, label: (x: number[], r: number) => number) {
  const rng = mulberry32(seed);
  const columns = Array.from({ length: p }, () => new Float64Array(n));
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) y[i] = label(columns.map((c) => (c[i] = rng() * 2 - 1)), rng());
  return { X: matrix(columns), y };
}

const close = (a: number, b: number, tol = 1e-9) => ok(Math.abs(a - b) <= tol, `${a} vs ${b}`);

Deno.test("fitLinear() ridge matches the closed form on a known case (slope 3/(3 + α) after standardising)", () => {
  // x = −1, 0, 1 has mean 0 and variance 2/3; with y = x + 1 the ridge line through the standardised x is
  // ŷ = 1 + 3x/(3 + α), and α = 0 recovers the exact line.
  const X = matrix([Float64Array.of(-1, 0, 1)]), y = Float64Array.of(0, 1, 2);
  const at = (m: LinearModel, x: number) => predictLinear(m, matrix([Float64Array.of(x)])).values[0]!;
  for (const alpha of [0, 1, 5]) {
    const m = fitLinear(X, y, "regression", [], { alpha });
    close(at(m, 2), 1 + (3 * 2) / (3 + alpha));
    close(at(m, -1), 1 - 3 / (3 + alpha));
    equal(m.iterations, 0);
  }
});

Deno.test("fitLinear() ridge satisfies its normal equations on random data with missing values", () => {
  const d = data(200, 3, 21, (x, r) => 2 * x[0]! - x[1]! + 0.1 * r);
  for (let i = 0; i < 200; i += 7) d.X.columns[1]![i] = NaN;
  const alpha = 2;
  const m = fitLinear(d.X, d.y, "regression", [], { alpha });
  deepEqual(m.columns.map((c) => c.indicator), [false, true, false]);
  equal(m.weights[0]!.length, 4);
  // Gradient of Σ(y − ŷ)² + α‖w‖² in the model's own inputs must vanish at the solution.
  const pred = predictLinear(m, d.X).values;
  const inputs = (i: number) => [
    ...m.columns.map((c, j) => {
      const x = d.X.columns[j]![i]!;
      return Number.isNaN(x) ? 0 : (x - c.mean) / c.scale;
    }),
    Number.isNaN(d.X.columns[1]![i]!) ? 1 : 0,
  ];
  const g = new Float64Array(5);
  for (let i = 0; i < 200; i++) {
    const r = pred[i]! - d.y[i]!;
    g[0]! += r;
    inputs(i).forEach((z, j) => (g[j + 1]! += r * z));
  }
  m.weights[0]!.forEach((w, j) => (g[j + 1]! += alpha * w));
  for (const v of g) close(v, 0, 1e-8);
});

Deno.test("fitLinear() logistic reaches the penalised optimum on separable data (gradient ≈ 0)", () => {
  // Separable: without a penalty the weights would grow without bound; with α they stop where the gradient
  // of Σ −log p + (α/2)‖w‖² is zero.
  const X = matrix([Float64Array.of(-2, -1, -0.5, 0.5, 1, 2), Float64Array.of(1, 0, 1, 0, 1, 0)]);
  const y = Float64Array.of(0, 0, 0, 1, 1, 1);
  const alpha = 0.5;
  const m = fitLinear(X, y, "binary", ["n", "p"], { alpha });
  const p = predictLinear(m, X).values;
  const g = [0, 0, 0];
  for (let i = 0; i < 6; i++) {
    g[0]! += p[i]! - y[i]!;
    m.columns.forEach((c, j) => (g[j + 1]! += (p[i]! - y[i]!) * ((X.columns[j]![i]! - c.mean) / c.scale)));
  }
  m.weights[0]!.forEach((w, j) => (g[j + 1]! += alpha * w));
  for (const v of g) close(v, 0, 1e-8);
  ok(m.iterations > 1 && m.iterations < 100);
  equal(score("accuracy", y, predictLinear(m, X)), 1);
  ok(m.weights[0]![0]! > 1, "the separating feature carries the weight");
});

Deno.test("fitLinear() multinomial softmax learns linearly separable classes; probabilities sum to 1", () => {
  const f = (x: number[]) => (x[0]! > 0.3 ? 2 : x[0]! + x[1]! > -0.2 ? 1 : 0);
  const tr = data(600, 3, 22, f), te = data(300, 3, 23, f);
  const m = fitLinear(tr.X, tr.y, "multiclass", ["a", "b", "c"], { alpha: 0.1 });
  equal(m.weights.length, 3);
  const pr = predictLinear(m, te.X);
  ok(score("accuracy", te.y, pr) > 0.93, `accuracy ${score("accuracy", te.y, pr)}`);
  for (let i = 0; i < 300; i++) {
    close(pr.values[3 * i]! + pr.values[3 * i + 1]! + pr.values[3 * i + 2]!, 1, 1e-12);
  }
});

Deno.test("fitLinear() beats the GBDT on a purely linear target", () => {
  const f = (x: number[], r: number) => 3 * x[0]! - 2 * x[1]! + x[2]! - 0.5 * x[3]! + 0.3 * (r - 0.5);
  const tr = data(400, 6, 24, f), te = data(400, 6, 25, f);
  const lin = score("r2", te.y, predictLinear(fitLinear(tr.X, tr.y, "regression", [], { alpha: 1 }), te.X));
  const gb = score("r2", te.y, predictGbdt(fitGbdt(tr.X, tr.y, "regression", [], {}), te.X));
  ok(lin > 0.99, `linear r2 ${lin}`);
  // Steps can only approximate a plane: the GBDT leaves several times the linear model's unexplained variance.
  ok(1 - lin < (1 - gb) / 3, `linear ${lin} vs GBDT ${gb}`);
});

Deno.test("fitLinear() models round-trip through JSON byte for byte and are deterministic", () => {
  const d = data(150, 3, 26, (x) => (x[0]! - x[2]! > 0 ? 1 : 0));
  d.X.columns[2]![5] = NaN;
  const m = fitLinear(d.X, d.y, "binary", ["0", "1"], { alpha: 1 });
  const text = JSON.stringify(m);
  equal(JSON.stringify(fitLinear(d.X, d.y, "binary", ["0", "1"], { alpha: 1 })), text);
  const back = parseLinearModel(JSON.parse(text));
  equal(JSON.stringify(back), text);
  deepEqual(predictLinear(back, d.X), predictLinear(m, d.X));
  throws(
    () => parseLinearModel({ ...JSON.parse(text), weights: [[1]] }),
    /Cannot read the linear model: weights 0/,
  );
  throws(() => parseLinearModel({ ...JSON.parse(text), format: "arrow-gbdt/1" }), /format "arrow-gbdt\/1"/);
});

Deno.test("linearParams() and fitLinear() refuse bad input with Cannot messages", () => {
  throws(() => linearParams({ alpha: -1 }), /Cannot use linear alpha -1/);
  throws(() => linearParams({ alpha: NaN }), /Cannot use linear alpha/);
  throws(() => linearParams({ stages: 3 } as never), /Cannot use linear parameter "stages"/);
  const d = data(5, 1, 1, () => 1);
  throws(() => fitLinear(d.X, new Float64Array(4), "regression", []), /Cannot fit the linear model: 5 rows/);
  // Two identical columns and no penalty: the normal equations are singular.
  const X = matrix([Float64Array.of(1, 2, 3, 4), Float64Array.of(1, 2, 3, 4)]);
  throws(() => fitLinear(X, Float64Array.of(1, 2, 3, 5), "regression", [], { alpha: 0 }), /singular/);
  throws(
    () => predictLinear(fitLinear(X, Float64Array.of(1, 2, 3, 5), "regression", []), matrix([X.columns[0]!])),
    /Cannot predict/,
  );
});

Deno.test("fitLinear() with tune chooses the strength an inner cross-validation written out here chooses", () => {
  // Few rows and many noise columns want a strong penalty; many rows and a clean signal a weak one.
  const noisy = data(60, 12, 31, (x, r) => (x[0]! + 2 * (r - 0.5) > 0 ? 1 : 0));
  const clean = data(400, 3, 32, (x) => (2 * x[0]! - x[1]! > 0 ? 1 : 0));
  for (const [d, task, classes] of [[noisy, "binary", ["0", "1"]], [clean, "binary", ["0", "1"]]] as const) {
    const m = fitLinear(d.X, d.y, task, classes, { alpha: 1, tune: 3 });
    // The same choice, written out: each strength fit on two thirds (row i in fold i mod 3), scored on the rest.
    const loss = TUNE_ALPHAS.map((alpha) => {
      let s = 0;
      for (let f = 0; f < 3; f++) {
        const tr = [...Array(d.y.length).keys()].filter((i) => i % 3 !== f);
        const va = [...Array(d.y.length).keys()].filter((i) => i % 3 === f);
        const pick = (rows: number[]) =>
          matrix(d.X.columns.map((c) => Float64Array.from(rows, (i) => c[i]!)));
        const fit = fitLinear(pick(tr), Float64Array.from(tr, (i) => d.y[i]!), task, classes, { alpha });
        const p = predictLinear(fit, pick(va)).values;
        va.forEach((i, r) => (s -= Math.log(Math.max(d.y[i] === 1 ? p[r]! : 1 - p[r]!, 1e-15))));
      }
      return s;
    });
    const best = TUNE_ALPHAS[loss.indexOf(Math.min(...loss))]!;
    // Standardising on all rows or on each fold's two thirds moves the losses a little, not the order of
    // half-decades: the choice is the written-out one or its neighbour.
    const at = TUNE_ALPHAS.indexOf(m.params.alpha);
    ok(
      at >= 0 && Math.abs(at - TUNE_ALPHAS.indexOf(best)) <= 1,
      `tuned ${m.params.alpha}, written out ${best}`,
    );
    equal(m.params.tune, 3);
    // The refit is the fixed-strength fit at the chosen strength, byte for byte apart from the params.
    const fixed = fitLinear(d.X, d.y, task, classes, { alpha: m.params.alpha });
    deepEqual(m.weights, fixed.weights);
    equal(JSON.stringify(parseLinearModel(JSON.parse(JSON.stringify(m)))), JSON.stringify(m));
  }
  const strong = fitLinear(noisy.X, noisy.y, "binary", ["0", "1"], { alpha: 1, tune: 3 }).params.alpha;
  const weak = fitLinear(clean.X, clean.y, "binary", ["0", "1"], { alpha: 1, tune: 3 }).params.alpha;
  ok(strong > weak, `noisy few rows ${strong} vs clean many rows ${weak}`);
  // Regression and multiclass choose too, and deterministically.
  const reg = data(200, 4, 33, (x, r) => x[0]! - x[1]! + 0.5 * (r - 0.5));
  const a = fitLinear(reg.X, reg.y, "regression", [], { tune: 4 });
  equal(JSON.stringify(fitLinear(reg.X, reg.y, "regression", [], { tune: 4 })), JSON.stringify(a));
  ok(TUNE_ALPHAS.includes(a.params.alpha));
  const mc = data(300, 3, 34, (x) => (x[0]! > 0.3 ? 2 : x[0]! + x[1]! > -0.2 ? 1 : 0));
  ok(TUNE_ALPHAS.includes(fitLinear(mc.X, mc.y, "multiclass", ["a", "b", "c"], { tune: 3 }).params.alpha));
  throws(() => linearParams({ tune: 1 }), /Cannot use linear tune 1/);
  throws(() => linearParams({ tune: 2.5 }), /Cannot use linear tune 2.5/);
});

Deno.test("tuneStrength() stopped past the minimum chooses what the whole path chooses, with fewer fits", () => {
  // Sixty problems: three tasks, few to many rows, few to many noise columns, clean to noisy labels.
  let same = 0, saved = 0, all = 0;
  const cases: string[] = [];
  for (let c = 0; c < 60; c++) {
    const task = (["binary", "multiclass", "regression"] as const)[c % 3]!;
    const n = [40, 120, 400, 900][c % 4]!,
      p = [2, 6, 15][c % 5 % 3]!,
      noise = [0.2, 1, 3][Math.floor(c / 5) % 3]!;
    const d = data(n, p, 100 + c, (x, r) => {
      const s = 1.5 * x[0]! - (p > 1 ? x[1]! : 0) + noise * (r - 0.5);
      return task === "regression" ? s : task === "binary" ? (s > 0 ? 1 : 0) : s > 0.4 ? 2 : s > -0.4 ? 1 : 0;
    });
    const classes = task === "multiclass" ? ["a", "b", "c"] : task === "binary" ? ["0", "1"] : [];
    const stopped = tuneStrength(d.X, d.y, task, classes, 3);
    const whole = tuneStrength(d.X, d.y, task, classes, 3, Infinity);
    equal(whole.tried, TUNE_ALPHAS.length);
    // It stops within TUNE_PATIENCE strengths of the chosen one (strongest first).
    const beyond = TUNE_ALPHAS.length - TUNE_ALPHAS.indexOf(stopped.alpha) + TUNE_PATIENCE;
    ok(stopped.tried <= Math.min(whole.tried, beyond), `tried ${stopped.tried}, chose ${stopped.alpha}`);
    if (stopped.alpha === whole.alpha) same += 1;
    else cases.push(`case ${c} (${task}, n ${n}, p ${p}): ${stopped.alpha} vs ${whole.alpha}`);
    saved += whole.tried - stopped.tried, all += whole.tried;
    // What fitLinear fits is the stopped choice.
    equal(fitLinear(d.X, d.y, task, classes, { tune: 3 }).params.alpha, stopped.alpha);
  }
  equal(same, 60, cases.join("; "));
  ok(saved > 0, `${saved} of ${all} strengths skipped`);
});

Deno.test("tuneStrength() walks on while the loss falls: a clean signal reaches the weakest strength", () => {
  const d = data(900, 2, 7, (x) => 2 * x[0]! - x[1]!);
  const t = tuneStrength(d.X, d.y, "regression", [], 3);
  equal(t.alpha, TUNE_ALPHAS[0]);
  equal(t.tried, TUNE_ALPHAS.length);
});
