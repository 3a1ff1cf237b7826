/**
 * The regularised linear model on the encoded matrix: ridge regression for regression targets, L2-penalised
 * logistic regression for binary ones and multinomial (softmax) for multiclass. Inputs are standardised with
 * the training rows' mean and (population) standard deviation; a missing value is imputed with the training
 * mean (0 after standardising) and, for a column that had missing training values, a 0/1 missing indicator
 * joins the inputs. Objectives (the sklearn conventions, so `alpha` maps to Ridge(alpha) and
 * LogisticRegression(C = 1/alpha)): ridge Σ(y − ŷ)² + α‖w‖², logistic Σ −log p(y) + (α/2)‖w‖², intercepts
 * unpenalised (multiclass puts 1e-8 on them, since softmax is blind to a shared shift). Deterministic
 * solvers (Cholesky; Newton with step halving), so the same data and alpha give the same model bytes.
 *
 * @module
 */
import type { Matrix } from "./encode.ts";
import { gram, logisticFit, probs, ridge, ridgeAt } from "./linear_solve.ts";
import type { Prediction } from "./metrics.ts";
import type { Task } from "./target.ts";

export interface LinearParams {
  /** L2 strength on the weights, finite ≥ 0 (0 is ordinary least squares / unpenalised). With `tune`, the
   * strength the inner cross-validation chose (what was asked is not used). */
  alpha: number;
  /**
   * Inner folds (2–10) to choose the strength from TUNE_ALPHAS on the training rows alone: each strength is
   * fit on all but one inner fold and scored on it (squared error, or log-loss), and the one with the least
   * summed loss is refit on every training row. Absent: `alpha` as given.
   */
  tune?: number;
}

/** The strengths an inner cross-validation (`tune`) chooses among: half-decades from 0.01 to 100. */
export const TUNE_ALPHAS: readonly number[] = [0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30, 100];

/** Where the inner fits' Newton steps stop (relative change of the coefficients); the final fit uses 1e-10. */
const TUNE_TOL = 1e-5;

export const DEFAULT_LINEAR: Readonly<LinearParams> = { alpha: 1 };

/** How one input column is read: (x − mean) / scale, missing → 0, plus an indicator when `indicator`. */
export interface LinearColumn {
  mean: number;
  scale: number;
  indicator: boolean;
}

export interface LinearModel {
  format: "arrow-linear/1";
  task: Task;
  classes: string[];
  features: string[];
  columns: LinearColumn[];
  /** One intercept per output (1, or K for multiclass). */
  intercept: number[];
  /** Per output: one weight per standardised feature, then one per indicator (in feature order). */
  weights: number[][];
  params: LinearParams;
  /** Solver iterations taken (Newton, or L-BFGS on large designs; 0 for ridge's closed form). */
  iterations: number;
}

/** Checks linear parameters, filling defaults, with "Cannot …" messages naming the bad value. */
export function linearParams(p: Partial<LinearParams> = {}): LinearParams {
  for (const k of Object.keys(p)) {
    if (k !== "alpha" && k !== "tune") {
      throw new RangeError(`Cannot use linear parameter ${JSON.stringify(k)}: it has only alpha and tune`);
    }
  }
  const alpha = p.alpha ?? DEFAULT_LINEAR.alpha;
  if (typeof alpha !== "number" || !Number.isFinite(alpha) || alpha < 0 || alpha > 1e12) {
    throw new RangeError(`Cannot use linear alpha ${JSON.stringify(alpha)}: a finite number in [0, 1e12]`);
  }
  if (p.tune === undefined) return { alpha };
  if (!Number.isInteger(p.tune) || p.tune < 2 || p.tune > 10) {
    throw new RangeError(`Cannot use linear tune ${JSON.stringify(p.tune)}: a whole number of folds, 2–10`);
  }
  return { alpha, tune: p.tune };
}

function readColumns(X: Matrix): LinearColumn[] {
  return X.columns.map((col) => {
    let s = 0, m = 0;
    for (let i = 0; i < col.length; i++) if (col[i] === col[i]) s += col[i]!, m++;
    const mean = m ? s / m : 0;
    let v = 0;
    for (let i = 0; i < col.length; i++) if (col[i] === col[i]) v += (col[i]! - mean) ** 2;
    const sd = m ? Math.sqrt(v / m) : 0;
    return { mean, scale: sd > 1e-12 ? sd : 1, indicator: m < col.length };
  });
}

/** The design matrix: an intercept column, the standardised features, then the indicators. */
function design(X: Matrix, cols: LinearColumn[]): { A: Float64Array; d: number } {
  const n = X.nRows, p = cols.length;
  const ind = cols.flatMap((c, j) => (c.indicator ? [j] : []));
  const d = 1 + p + ind.length;
  const A = new Float64Array(n * d);
  for (let i = 0; i < n; i++) A[i * d] = 1;
  for (let j = 0; j < p; j++) {
    const col = X.columns[j]!, { mean, scale } = cols[j]!;
    for (let i = 0; i < n; i++) A[i * d + 1 + j] = col[i] === col[i] ? (col[i]! - mean) / scale : 0;
  }
  ind.forEach((j, t) => {
    const col = X.columns[j]!;
    for (let i = 0; i < n; i++) A[i * d + 1 + p + t] = col[i] === col[i] ? 0 : 1;
  });
  return { A, d };
}

/** Fits the linear model on the rows of X with labels y (values, or class indices 0..K−1). */
export function fitLinear(
  X: Matrix,
  y: ArrayLike<number>,
  task: Task,
  classes: readonly string[],
  params: Partial<LinearParams> = {},
): LinearModel {
  const q = linearParams(params);
  const n = X.nRows;
  if (y.length !== n || n === 0) {
    throw new RangeError(`Cannot fit the linear model: ${n} rows but ${y.length} labels`);
  }
  const columns = readColumns(X);
  const { A, d } = design(X, columns);
  const K = task === "multiclass" ? classes.length : 1;
  const m: Design = { A, y, n, d, K, task };
  if (q.tune !== undefined) q.alpha = tunedAlpha(m, q.tune).alpha;
  const { beta, iterations } = solve(m, q.alpha);
  const out = Array.from({ length: K }, (_, k) => Array.from(beta.subarray(k * d, (k + 1) * d)));
  return {
    format: "arrow-linear/1",
    task,
    classes: [...classes],
    features: [...X.names],
    columns,
    intercept: out.map((b) => b[0]!),
    weights: out.map((b) => b.slice(1)),
    params: q,
    iterations,
  };
}

/** A design matrix (n rows × d columns, row-major) with its labels and the task's outputs K. */
interface Design {
  A: Float64Array;
  y: ArrayLike<number>;
  n: number;
  d: number;
  K: number;
  task: Task;
}

function solve(
  m: Design,
  alpha: number,
  from: Float64Array | null = null,
  tol = 1e-10,
): { beta: Float64Array; iterations: number } {
  const { A, y, n, d, K, task } = m;
  if (task === "regression") return { beta: ridge(A, y, n, d, alpha), iterations: 0 };
  const fit = logisticFit({ A, y, n, d, K, alpha, interceptPenalty: K > 1 ? 1e-8 : 0 }, from, tol);
  return { beta: fit.beta, iterations: fit.iterations };
}

/** Row i's loss under coefficients `beta`: squared error, or −log p of its class (floored at 1e-15). */
function rowLoss(m: Design, beta: Float64Array, i: number, p: Float64Array): number {
  const y = m.y[i]!;
  if (m.task === "regression") {
    let f = 0;
    for (let a = 0; a < m.d; a++) f += m.A[i * m.d + a]! * beta[a]!;
    return (y - f) ** 2;
  }
  probs(m.A, beta, i, m.d, m.K, p);
  return -Math.log(Math.max(m.K === 1 ? (y === 1 ? p[0]! : 1 - p[0]!) : p[y]!, 1e-15));
}

/**
 * Strengths tried past the best so far, each with a larger summed inner-validation loss, before the path stops.
 * A validation loss along a ridge path falls to one minimum and rises after it; the weakest strengths are the
 * slowest fits (the most solver steps) and, past the minimum, the ones that cannot win.
 */
export const TUNE_PATIENCE = 2;

/**
 * The strength of TUNE_ALPHAS with the least summed inner-validation loss over `k` inner folds of the training
 * rows (row i in fold i mod k: no randomness, and the rows' order spreads the classes); ties go to the stronger
 * penalty. The inputs stay standardised on all training rows, as the final fit reads them. Strongest first,
 * every fold at one strength before the next, stopping once TUNE_PATIENCE strengths in a row lose to the best
 * (`patience`: Infinity walks the whole path).
 */
function tunedAlpha(m: Design, k: number, patience = TUNE_PATIENCE): { alpha: number; tried: number } {
  const { A, y, n, d } = m;
  const p = new Float64Array(Math.max(m.K, 2));
  const folds = [];
  for (let f = 0; f < k; f++) {
    const train: number[] = [], valid: number[] = [];
    for (let i = 0; i < n; i++) (i % k === f ? valid : train).push(i);
    if (!train.length || !valid.length) continue;
    const At = new Float64Array(train.length * d), yt = new Float64Array(train.length);
    train.forEach((i, r) => (At.set(A.subarray(i * d, (i + 1) * d), r * d), yt[r] = y[i]!));
    const inner: Design = { ...m, A: At, y: yt, n: train.length };
    // Ridge's strengths share one set of normal equations per inner fold (the same bytes as each solved alone).
    const normal = m.task === "regression" ? gram(At, yt, train.length, d) : null;
    folds.push({ inner, valid, normal, from: null as Float64Array | null });
  }
  // Each Newton solve starts from the same fold's solution at the previous (stronger) strength and stops at a
  // tolerance far finer than a validation loss can tell apart (a few steps each).
  let best = TUNE_ALPHAS.length - 1, bestLoss = Infinity, worse = 0, tried = 0;
  for (let j = TUNE_ALPHAS.length - 1; j >= 0 && worse < patience; j--) {
    tried += 1;
    let loss = 0;
    for (const f of folds) {
      const beta: Float64Array = f.normal
        ? ridgeAt(f.normal, TUNE_ALPHAS[j]!)
        : solve(f.inner, TUNE_ALPHAS[j]!, f.from, TUNE_TOL).beta;
      for (const i of f.valid) loss += rowLoss(m, beta, i, p);
      f.from = beta;
    }
    if (loss < bestLoss) (best = j), (bestLoss = loss), (worse = 0);
    else worse += 1;
  }
  return { alpha: TUNE_ALPHAS[best]!, tried };
}

/**
 * The strength `tune: k` chooses for these rows, and how many strengths of TUNE_ALPHAS it fit to choose it (the
 * inner search alone, for tests and bench:linear; `patience` Infinity: the whole path).
 */
export function tuneStrength(
  X: Matrix,
  y: ArrayLike<number>,
  task: Task,
  classes: readonly string[],
  k: number,
  patience = TUNE_PATIENCE,
): { alpha: number; tried: number } {
  const { A, d } = design(X, readColumns(X));
  return tunedAlpha(
    { A, y, n: X.nRows, d, K: task === "multiclass" ? classes.length : 1, task },
    k,
    patience,
  );
}

/** Predicts the rows of X (columns named as at fit time, in the same order). */
export function predictLinear(model: LinearModel, X: Matrix): Prediction {
  if (X.names.length !== model.features.length || X.names.some((nm, j) => nm !== model.features[j])) {
    throw new RangeError(
      `Cannot predict: the model was fit on ${model.features.length} features, the matrix has ${X.names.length} differently named or ordered`,
    );
  }
  const { A, d } = design(X, model.columns);
  const K = model.intercept.length, n = X.nRows;
  const F = new Float64Array(n * K);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < K; k++) {
      const w = model.weights[k]!;
      let s = model.intercept[k]!;
      for (let a = 1; a < d; a++) s += A[i * d + a]! * w[a - 1]!;
      F[i * K + k] = s;
    }
  }
  if (model.task === "regression") return { task: "regression", k: 1, values: F };
  if (model.task === "binary") return { task: "binary", k: 1, values: F.map((f) => 1 / (1 + Math.exp(-f))) };
  const values = new Float64Array(n * K);
  for (let i = 0; i < n; i++) {
    let max = -Infinity, sum = 0;
    for (let k = 0; k < K; k++) max = Math.max(max, F[i * K + k]!);
    for (let k = 0; k < K; k++) sum += values[i * K + k] = Math.exp(F[i * K + k]! - max);
    for (let k = 0; k < K; k++) values[i * K + k]! /= sum;
  }
  return { task: "multiclass", k: K, values };
}
