/**
 * The linear model's deterministic solvers on a dense design matrix A (n × d, row-major, column 0 the
 * intercept): ridge by its normal equations (AᵀA + P)β = Aᵀy through a Cholesky factorisation, and penalised
 * log-loss (sigmoid for one output, softmax for K) by Newton's method with step halving, each Newton system
 * again solved by Cholesky. P is α on every weight and `interceptPenalty` on the intercepts.
 *
 * @module
 */
import { alive } from "./alive.ts";

/** Solves S x = b for a symmetric positive definite S (d × d, row-major; overwritten by its factor). */
export function choleskySolve(S: Float64Array, b: Float64Array, d: number): Float64Array {
  for (let j = 0; j < d; j++) {
    let s = S[j * d + j]!;
    for (let k = 0; k < j; k++) s -= S[j * d + k]! ** 2;
    if (!(s > 1e-12 * Math.max(1, Math.abs(S[j * d + j]!)))) {
      throw new RangeError(
        "Cannot fit the linear model: its normal equations are singular (collinear columns); use alpha > 0",
      );
    }
    const l = Math.sqrt(s);
    S[j * d + j] = l;
    for (let i = j + 1; i < d; i++) {
      let t = S[i * d + j]!;
      for (let k = 0; k < j; k++) t -= S[i * d + k]! * S[j * d + k]!;
      S[i * d + j] = t / l;
    }
  }
  const x = Float64Array.from(b);
  for (let i = 0; i < d; i++) {
    let t = x[i]!;
    for (let k = 0; k < i; k++) t -= S[i * d + k]! * x[k]!;
    x[i] = t / S[i * d + i]!;
  }
  for (let i = d - 1; i >= 0; i--) {
    let t = x[i]!;
    for (let k = i + 1; k < d; k++) t -= S[k * d + i]! * x[k]!;
    x[i] = t / S[i * d + i]!;
  }
  return x;
}

/** The normal equations' lower triangle AᵀA (d × d, row-major) and Aᵀy: what every ridge strength shares. */
export interface Gram {
  S: Float64Array;
  b: Float64Array;
  d: number;
}

export function gram(A: Float64Array, y: ArrayLike<number>, n: number, d: number): Gram {
  const S = new Float64Array(d * d), b = new Float64Array(d);
  for (let i = 0; i < n; i++) {
    const o = i * d, yi = y[i]!;
    for (let a = 0; a < d; a++) {
      const va = A[o + a]!;
      if (va === 0) continue;
      b[a]! += va * yi;
      for (let c = 0; c <= a; c++) S[a * d + c]! += va * A[o + c]!;
    }
  }
  return { S, b, d };
}

/** Ridge from its normal equations `g` at strength α (the intercept unpenalised); `g` is left as it was. */
export function ridgeAt(g: Gram, alpha: number): Float64Array {
  const { d } = g;
  const S = Float64Array.from(g.S);
  for (let a = 1; a < d; a++) S[a * d + a]! += alpha;
  mirror(S, d);
  return choleskySolve(S, g.b, d);
}

/** Ridge: β minimising Σ(y − Aβ)² + α‖w‖² (the intercept unpenalised). */
export function ridge(
  A: Float64Array,
  y: ArrayLike<number>,
  n: number,
  d: number,
  alpha: number,
): Float64Array {
  return ridgeAt(gram(A, y, n, d), alpha);
}

function mirror(S: Float64Array, d: number): void {
  for (let a = 0; a < d; a++) for (let c = a + 1; c < d; c++) S[a * d + c] = S[c * d + a]!;
}

/** A penalised log-loss problem: design A (n × d, row-major, column 0 the intercept), labels y, K outputs
 * (1: sigmoid), the weights' L2 strength α and the intercepts' own. */
export interface LogisticProblem {
  A: Float64Array;
  y: ArrayLike<number>;
  n: number;
  d: number;
  K: number;
  alpha: number;
  interceptPenalty: number;
}

/** Coefficient j's L2 strength: the intercepts' (every d-th, from 0) or the weights' α. */
const penaltyOf = ({ d, alpha, interceptPenalty }: LogisticProblem) => (j: number) =>
  j % d === 0 ? interceptPenalty : alpha;

/** Where a solve starts: `from` when it fits the problem (a nearby strength's solution), else zero. */
const startOf = ({ d, K }: LogisticProblem, from: Float64Array | null) =>
  from && from.length === K * d ? Float64Array.from(from) : new Float64Array(K * d);

export interface LogisticFit {
  /** K × d coefficients, output-major (K = 1 for binary). */
  beta: Float64Array;
  iterations: number;
  /** Largest absolute entry of the objective's gradient at the solution. */
  gradMax: number;
}

/**
 * Penalised log-loss: β minimising Σ −log p(yᵢ) + (α/2)‖w‖² + (interceptPenalty/2)‖b‖², with p the sigmoid of
 * one output (K = 1, y ∈ {0, 1}) or the softmax of K outputs (y ∈ 0..K−1). Newton's method starts at zero,
 * or at `from` (a nearby solution, such as the one for the next strength along a path: fewer steps), and
 * stops once a step moves no coefficient by more than `tol` relative to the largest.
 */
export function logistic(
  problem: LogisticProblem,
  maxIter = 100,
  from: Float64Array | null = null,
  tol = 1e-10,
): LogisticFit {
  const { A, y, n, d, K } = problem;
  const D = K * d;
  let beta = startOf(problem, from);
  const pen = penaltyOf(problem);
  const objective = (b: Float64Array) => objectiveGrad(problem, b, pen, null);
  let f = objective(beta);
  let it = 0;
  let grad = new Float64Array(D);
  for (; it < maxIter; it++) {
    alive();
    const H = new Float64Array(D * D);
    grad = new Float64Array(D);
    gradHess(A, y, n, d, K, beta, grad, H);
    for (let j = 0; j < D; j++) grad[j]! += pen(j) * beta[j]!, H[j * D + j]! += pen(j);
    mirror(H, D);
    const step = choleskySolve(H, grad, D);
    // Halve the Newton step until the objective does not rise (it always falls for a small enough step).
    let t = 1, next = beta, fn = f;
    for (let h = 0; h < 40; h++, t /= 2) {
      next = beta.map((v, j) => v - t * step[j]!);
      fn = objective(next);
      if (fn <= f) break;
    }
    const moved = step.reduce((m, v) => Math.max(m, Math.abs(t * v)), 0);
    beta = next, f = fn;
    if (moved < tol * (1 + beta.reduce((m, v) => Math.max(m, Math.abs(v)), 0))) {
      it++;
      break;
    }
  }
  const g = new Float64Array(D);
  gradHess(A, y, n, d, K, beta, g, null);
  let gradMax = 0;
  for (let j = 0; j < D; j++) gradMax = Math.max(gradMax, Math.abs(g[j]! + pen(j) * beta[j]!));
  return { beta, iterations: it, gradMax };
}

/**
 * Work of one Newton step (flops) above which `logisticFit` uses L-BFGS: Newton's dense Hessian of D = K·d
 * coefficients costs n·D² to build — on 5,000 rows of 50 columns and 10 classes, 16 s for one fit — and D³/3
 * to factor, which rules on few rows of many classes (34 rows, 37 columns, 32 classes: 0.36 s a step, 35 s
 * for one tuned fit); L-BFGS costs a few passes of n·D.
 */
export const NEWTON_WORK = 5e7;

/** One Newton step's flops on n rows and D coefficients: the Hessian's build and its Cholesky factor. */
export const newtonWork = (n: number, D: number): number => n * D * D + (D * D * D) / 3;

/**
 * Penalised log-loss (the objective of `logistic`) by Newton's method where a step is cheap enough
 * (`newtonWork` ≤ NEWTON_WORK), else by L-BFGS; `tol` is Newton's step tolerance, and L-BFGS stops once no
 * entry of the gradient exceeds max(tol, 1e-7) per row.
 */
export function logisticFit(
  problem: LogisticProblem,
  from: Float64Array | null = null,
  tol = 1e-10,
): LogisticFit {
  const { n, d, K } = problem;
  return newtonWork(n, K * d) <= NEWTON_WORK
    ? logistic(problem, 100, from, tol)
    : lbfgs(problem, 2000, from, Math.max(tol, 1e-7));
}

/** Pairs of steps and gradient changes L-BFGS keeps. */
const LBFGS_MEMORY = 10;

/** The objective of `logistic` at `beta`, its gradient written into `g` when given (one pass over the rows). */
function objectiveGrad(
  { A, y, n, d, K }: LogisticProblem,
  beta: Float64Array,
  pen: (j: number) => number,
  g: Float64Array | null,
): number {
  g?.fill(0);
  const p = new Float64Array(Math.max(K, 2));
  let s = 0;
  for (let i = 0; i < n; i++) {
    probs(A, beta, i, d, K, p);
    const yi = y[i]!;
    s -= Math.log(Math.max(K === 1 ? (yi === 1 ? p[0]! : 1 - p[0]!) : p[yi]!, 1e-300));
    if (!g) continue;
    const o = i * d;
    for (let k = 0; k < K; k++) {
      const r = p[k]! - (K === 1 ? yi : yi === k ? 1 : 0);
      if (r === 0) continue;
      const gk = k * d;
      for (let a = 0; a < d; a++) g[gk + a]! += r * A[o + a]!;
    }
  }
  for (let j = 0; j < beta.length; j++) {
    s += 0.5 * pen(j) * beta[j]! ** 2;
    if (g) g[j]! += pen(j) * beta[j]!;
  }
  return s;
}

const dot = (a: Float64Array, b: Float64Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

const maxAbs = (a: Float64Array) => a.reduce((m, v) => Math.max(m, Math.abs(v)), 0);

/**
 * Penalised log-loss by limited-memory BFGS: the two-loop recursion over the last LBFGS_MEMORY pairs, a
 * backtracking line search from the full step (sufficient decrease), a pair kept only when its curvature is
 * positive, and the memory dropped when a direction does not descend. Stops once no gradient entry exceeds
 * `gtol` per row, when a step no longer lowers the objective, or after `maxIter` steps. Deterministic.
 */
export function lbfgs(
  problem: LogisticProblem,
  maxIter = 2000,
  from: Float64Array | null = null,
  gtol = 1e-7,
): LogisticFit {
  const { n, d, K } = problem;
  const D = K * d;
  const pen = penaltyOf(problem);
  let x = startOf(problem, from);
  let g = new Float64Array(D);
  let f = objectiveGrad(problem, x, pen, g);
  const S: Float64Array[] = [], Y: Float64Array[] = [], rho: number[] = [];
  const dir = new Float64Array(D), a = new Array<number>(LBFGS_MEMORY);
  let it = 0;
  for (; it < maxIter && maxAbs(g) > gtol * n; it++) {
    alive();
    dir.set(g);
    for (let m = S.length - 1; m >= 0; m--) {
      a[m] = rho[m]! * dot(S[m]!, dir);
      const ym = Y[m]!;
      for (let j = 0; j < D; j++) dir[j]! -= a[m]! * ym[j]!;
    }
    const last = S.length - 1;
    const gamma = last >= 0 ? dot(S[last]!, Y[last]!) / dot(Y[last]!, Y[last]!) : 1 / Math.sqrt(dot(g, g));
    for (let j = 0; j < D; j++) dir[j]! *= gamma;
    for (let m = 0; m < S.length; m++) {
      const b = rho[m]! * dot(Y[m]!, dir), sm = S[m]!;
      for (let j = 0; j < D; j++) dir[j]! += sm[j]! * (a[m]! - b);
    }
    for (let j = 0; j < D; j++) dir[j] = -dir[j]!;
    let slope = dot(g, dir);
    if (!(slope < 0)) {
      // Not a descent direction (the memory misleads): start over from the scaled gradient.
      S.length = Y.length = rho.length = 0;
      const scale = 1 / Math.sqrt(dot(g, g));
      for (let j = 0; j < D; j++) dir[j] = -g[j]! * scale;
      slope = dot(g, dir);
    }
    const gn = new Float64Array(D);
    let t = 1, xn = x, fn = f, found = false;
    for (let h = 0; h < 40; h++, t /= 2) {
      xn = x.map((v, j) => v + t * dir[j]!);
      fn = objectiveGrad(problem, xn, pen, gn);
      if (fn <= f + 1e-4 * t * slope) {
        found = true;
        break;
      }
    }
    if (!found) break;
    const s = xn.map((v, j) => v - x[j]!), yv = gn.map((v, j) => v - g[j]!);
    const sy = dot(s, yv);
    if (sy > 1e-12 * dot(yv, yv)) {
      if (S.length === LBFGS_MEMORY) S.shift(), Y.shift(), rho.shift();
      S.push(s), Y.push(yv), rho.push(1 / sy);
    }
    const fell = f - fn;
    x = xn, f = fn, g = gn;
    if (fell <= 1e-15 * Math.max(1, Math.abs(f))) {
      it++;
      break;
    }
  }
  return { beta: x, iterations: it, gradMax: maxAbs(g) };
}

/** Probabilities of row i: p[0] = sigmoid for K = 1, else the softmax over K outputs. */
export function probs(
  A: Float64Array,
  beta: Float64Array,
  i: number,
  d: number,
  K: number,
  p: Float64Array,
): void {
  const o = i * d;
  let max = -Infinity;
  for (let k = 0; k < K; k++) {
    let s = 0;
    for (let a = 0; a < d; a++) s += A[o + a]! * beta[k * d + a]!;
    p[k] = s;
    max = Math.max(max, s);
  }
  if (K === 1) {
    p[0] = 1 / (1 + Math.exp(-p[0]!));
    return;
  }
  let sum = 0;
  for (let k = 0; k < K; k++) sum += p[k] = Math.exp(p[k]! - max);
  for (let k = 0; k < K; k++) p[k]! /= sum;
}

/** Adds the log-loss gradient into `g` and (lower triangle) Hessian into `H` when given. */
function gradHess(
  A: Float64Array,
  y: ArrayLike<number>,
  n: number,
  d: number,
  K: number,
  beta: Float64Array,
  g: Float64Array,
  H: Float64Array | null,
): void {
  const D = K * d;
  const p = new Float64Array(Math.max(K, 2));
  for (let i = 0; i < n; i++) {
    probs(A, beta, i, d, K, p);
    const o = i * d;
    for (let k = 0; k < K; k++) {
      const r = p[k]! - (K === 1 ? y[i]! : y[i] === k ? 1 : 0);
      for (let a = 0; a < d; a++) g[k * d + a]! += r * A[o + a]!;
      if (!H) continue;
      for (let l = 0; l <= k; l++) {
        const w = K === 1 ? p[0]! * (1 - p[0]!) : p[k]! * ((k === l ? 1 : 0) - p[l]!);
        if (w === 0) continue;
        for (let a = 0; a < d; a++) {
          const va = A[o + a]! * w;
          if (va === 0) continue;
          const row = (k * d + a) * D + l * d;
          const top = l === k ? a : d - 1;
          for (let c = 0; c <= top; c++) H[row + c]! += va * A[o + c]!;
        }
      }
    }
  }
}
