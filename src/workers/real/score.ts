/**
 * The protocol's score: the coefficient of determination R² = 1 − SS_res / SS_tot, summed left to right
 * in row order so every implementation (this one, the Python trainer, the checkers) gets the same bits.
 *
 * @module
 */

export function r2(y: readonly number[], pred: readonly number[]): number {
  let sum = 0;
  for (const v of y) sum += v;
  const mean = sum / y.length;
  let ssTot = 0;
  let ssRes = 0;
  for (let i = 0; i < y.length; i++) {
    ssTot += (y[i]! - mean) * (y[i]! - mean);
    ssRes += (y[i]! - pred[i]!) * (y[i]! - pred[i]!);
  }
  // A constant target has no variance to explain: call a perfect fit 1 and anything else 0.
  if (ssTot === 0) return ssRes === 0 ? 1 : 0;
  return 1 - ssRes / ssTot;
}
