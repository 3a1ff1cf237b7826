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
import { logistic, ridge } from "./linear_solve.ts";
import type { Prediction } from "./metrics.ts";
import type { Task } from "./target.ts";

export interface LinearParams {
  /** L2 strength on the weights, finite ≥ 0 (0 is ordinary least squares / unpenalised). */
  alpha: number;
}

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
  /** Newton iterations taken (0 for ridge's closed form). */
  iterations: number;
}

/** Checks linear parameters, filling defaults, with "Cannot …" messages naming the bad value. */
export function linearParams(p: Partial<LinearParams> = {}): LinearParams {
  for (const k of Object.keys(p)) {
    if (k !== "alpha") {
      throw new RangeError(`Cannot use linear parameter ${JSON.stringify(k)}: it has only alpha`);
    }
  }
  const alpha = p.alpha ?? DEFAULT_LINEAR.alpha;
  if (typeof alpha !== "number" || !Number.isFinite(alpha) || alpha < 0 || alpha > 1e12) {
    throw new RangeError(`Cannot use linear alpha ${JSON.stringify(alpha)}: a finite number in [0, 1e12]`);
  }
  return { alpha };
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
  let beta: Float64Array, iterations = 0;
  if (task === "regression") beta = ridge(A, y, n, d, q.alpha);
  else {
    const fit = logistic(A, y, n, d, K, q.alpha, K > 1 ? 1e-8 : 0);
    beta = fit.beta, iterations = fit.iterations;
  }
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
