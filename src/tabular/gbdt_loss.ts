/**
 * The GBDT's losses on raw scores: starting scores, per-row gradient and hessian pairs (interleaved, so the
 * histogram loop reads one stream), and the mean loss that early stopping watches — squared error for
 * regression, log-loss for binary and softmax for multiclass.
 *
 * @module
 */
import type { Task } from "./target.ts";

/** Starting raw score per output: the mean, the prior log-odds, or the log class priors. */
export function initialScores(task: Task, y: ArrayLike<number>, K: number): number[] {
  const n = y.length;
  if (task === "regression") {
    let s = 0;
    for (let i = 0; i < n; i++) s += y[i]!;
    return [s / n];
  }
  const counts = new Float64Array(Math.max(K, 2));
  for (let i = 0; i < n; i++) counts[y[i]!]!++;
  const clip = (p: number) => Math.min(1 - 1e-15, Math.max(1e-15, p));
  if (task === "binary") {
    const p = clip(counts[1]! / n);
    return [Math.log(p / (1 - p))];
  }
  return Array.from({ length: K }, (_, k) => Math.log(clip(counts[k]! / n)));
}

/**
 * Writes gh[k][2i] = g and gh[k][2i + 1] = h for output k of rows i in [from, to) (default all), from raw
 * scores F (row-major, K wide). Each row's pair depends on that row alone, so any split of the rows agrees.
 */
export function gradients(
  task: Task,
  y: ArrayLike<number>,
  F: Float64Array,
  K: number,
  gh: Float64Array[],
  from = 0,
  to = y.length,
) {
  if (task === "regression") {
    const a = gh[0]!;
    for (let i = from; i < to; i++) {
      a[2 * i] = F[i]! - y[i]!;
      a[2 * i + 1] = 1;
    }
  } else if (task === "binary") {
    const a = gh[0]!;
    for (let i = from; i < to; i++) {
      const p = 1 / (1 + Math.exp(-F[i]!));
      a[2 * i] = p - y[i]!;
      a[2 * i + 1] = Math.max(p * (1 - p), 1e-16);
    }
  } else {
    const p = new Float64Array(K);
    for (let i = from; i < to; i++) {
      softmax(F, i * K, K, p, 0);
      for (let k = 0; k < K; k++) {
        gh[k]![2 * i] = p[k]! - (y[i] === k ? 1 : 0);
        gh[k]![2 * i + 1] = Math.max(p[k]! * (1 - p[k]!), 1e-16);
      }
    }
  }
}

/** out[to..to+K) = softmax of F[from..from+K). */
export function softmax(F: ArrayLike<number>, from: number, K: number, out: Float64Array, to: number): void {
  let max = -Infinity;
  for (let k = 0; k < K; k++) max = Math.max(max, F[from + k]!);
  let sum = 0;
  for (let k = 0; k < K; k++) sum += out[to + k] = Math.exp(F[from + k]! - max);
  for (let k = 0; k < K; k++) out[to + k]! /= sum;
}

/** Mean loss of raw scores F against y: squared error, or log-loss with probabilities clipped at 1e-15. */
export function meanLoss(task: Task, y: ArrayLike<number>, F: Float64Array, K: number): number {
  const n = y.length;
  let s = 0;
  const clipLog = (p: number) => -Math.log(Math.min(1 - 1e-15, Math.max(1e-15, p)));
  if (task === "regression") { for (let i = 0; i < n; i++) s += (F[i]! - y[i]!) ** 2; }
  else if (task === "binary") {
    for (let i = 0; i < n; i++) {
      const p = 1 / (1 + Math.exp(-F[i]!));
      s += clipLog(y[i] === 1 ? p : 1 - p);
    }
  } else {
    const p = new Float64Array(K);
    for (let i = 0; i < n; i++) {
      softmax(F, i * K, K, p, 0);
      s += clipLog(p[y[i]!]!);
    }
  }
  return s / n;
}
