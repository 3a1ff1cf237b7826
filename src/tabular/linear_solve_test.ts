/**
 * The linear model's two log-loss solvers agree: L-BFGS (for designs too large for Newton's dense Hessian)
 * reaches the optimum Newton's method reaches, to a millionth of a probability; the fit uses L-BFGS exactly
 * above NEWTON_WORK (the Hessian's build and its factor); ridge from shared normal equations is the same bytes as solved alone.
 *
 * @module
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import {
  gram,
  lbfgs,
  logistic,
  logisticFit,
  NEWTON_WORK,
  newtonWork,
  probs,
  ridge,
  ridgeAt,
} from "./linear_solve.ts";
import { fitLinear, predictLinear } from "./linear.ts";
import { mulberry32 } from "./prng.ts";
import { score } from "./metrics.ts";

/** A design (intercept column first) of n rows, d − 1 uniform features, and labels from two of them. */
function design(n: number, d: number, K: number, seed: number) {
  const r = mulberry32(seed);
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

function largestGap(A: Float64Array, n: number, d: number, K: number, b1: Float64Array, b2: Float64Array) {
  const p = new Float64Array(Math.max(K, 2)), q = new Float64Array(Math.max(K, 2));
  let gap = 0;
  for (let i = 0; i < n; i++) {
    probs(A, b1, i, d, K, p);
    probs(A, b2, i, d, K, q);
    for (let k = 0; k < Math.max(K, 1); k++) gap = Math.max(gap, Math.abs(p[k]! - q[k]!));
  }
  return gap;
}

Deno.test("lbfgs() reaches Newton's optimum: binary and softmax, weak to strong penalties, from zero or warm", () => {
  for (
    const [n, d, K, alpha, seed] of [[600, 8, 1, 0.1, 1], [800, 12, 4, 1, 2], [300, 20, 3, 0.01, 3], [
      500,
      6,
      5,
      100,
      4,
    ]]
  ) {
    const { A, y } = design(n!, d!, K!, seed!);
    const problem = { A, y, n: n!, d: d!, K: K!, alpha: alpha!, interceptPenalty: K! > 1 ? 1e-8 : 0 };
    const newton = logistic(problem);
    const got = lbfgs(problem);
    ok(got.gradMax <= 1e-7 * n!, `gradient ${got.gradMax}`);
    const gap = largestGap(A, n!, d!, K!, newton.beta, got.beta);
    ok(gap < 2e-5, `n ${n} d ${d} K ${K} α ${alpha}: probabilities differ by ${gap}`);
    // Warm-started from a nearby strength's solution: the same optimum, in fewer steps.
    const warm = lbfgs(problem, 2000, lbfgs({ ...problem, alpha: alpha! * 3 }).beta);
    ok(largestGap(A, n!, d!, K!, newton.beta, warm.beta) < 2e-5);
    ok(warm.iterations <= got.iterations, `${warm.iterations} warm vs ${got.iterations} cold`);
    // Deterministic to the bit.
    deepEqual(lbfgs(problem).beta, got.beta);
  }
});

Deno.test("logisticFit() uses Newton up to NEWTON_WORK and L-BFGS above it", () => {
  // n·(K·d)² + (K·d)³/3 just under and just over the bound.
  const d = 20, K = 5, D = K * d;
  const over = Math.floor((NEWTON_WORK - D ** 3 / 3) / D ** 2) + 1;
  for (const n of [over - 1, over]) {
    const { A, y } = design(n, d, K, 9);
    const problem = { A, y, n, d, K, alpha: 1, interceptPenalty: 1e-8 };
    const fit = logisticFit(problem);
    equal(newtonWork(n, D) <= NEWTON_WORK, n === over - 1);
    const want = n === over - 1 ? logistic(problem) : lbfgs(problem);
    deepEqual(fit.beta, want.beta, `n ${n}`);
  }
});

Deno.test("logisticFit() counts the Hessian's factor: few rows of many classes go to L-BFGS", () => {
  // 34 rows, 37 columns, 32 classes: the build (n·D²) is under the bound, the factor (D³/3) far over it — a
  // Newton step there took 0.36 s and one tuned fit 35 s, so long a child was taken for hung.
  const n = 34, d = 37, K = 32, D = K * d;
  ok(n * D * D <= NEWTON_WORK && newtonWork(n, D) > NEWTON_WORK);
  const { A, y } = design(n, d, K, 4);
  const problem = { A, y, n, d, K, alpha: 100, interceptPenalty: 1e-8 };
  deepEqual(logisticFit(problem).beta, lbfgs(problem).beta);
});

Deno.test("ridgeAt() from shared normal equations is ridge() to the bit, and leaves them as they were", () => {
  const { A, y } = design(200, 6, 1, 5);
  const yr = y.map((v, i) => v + A[i * 6 + 3]!);
  const g = gram(A, yr, 200, 6);
  const before = Float64Array.from(g.S);
  for (const alpha of [0.01, 1, 100]) deepEqual(ridgeAt(g, alpha), ridge(A, yr, 200, 6, alpha));
  deepEqual(g.S, before);
});

Deno.test("fitLinear() on a design above NEWTON_WORK (tuned softmax, 10 classes) fits and predicts", () => {
  const n = 1500, p = 30, K = 10;
  const r = mulberry32(11);
  const columns = Array.from({ length: p }, () => new Float64Array(n));
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    for (const c of columns) c[i] = r() * 2 - 1;
    y[i] = Math.min(K - 1, Math.floor(((columns[0]![i]! + 1) / 2) * K));
  }
  ok(n * (K * (p + 1)) ** 2 > NEWTON_WORK);
  const X = { names: columns.map((_, j) => `x${j}`), columns, nRows: n };
  const classes = Array.from({ length: K }, (_, k) => `c${k}`);
  const m = fitLinear(X, y, "multiclass", classes, { alpha: 1, tune: 3 });
  ok(m.iterations > 0);
  const acc = score("accuracy", y, predictLinear(m, X));
  // Ten ordered bands of one feature: a linear softmax separates most rows (chance is 0.1).
  ok(acc > 0.7, `accuracy ${acc}`);
  equal(m.params.tune, 3);
});
