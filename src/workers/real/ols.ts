/**
 * Ordinary least squares with an intercept, by modified Gram–Schmidt QR with one re-orthogonalisation pass
 * (accurate to rounding for well-posed data). A column that is (numerically) a combination of earlier ones is
 * dropped and gets coefficient 0, which leaves the fitted values — and so R² — those of any least-squares
 * solution, as numpy's lstsq would give.
 *
 * @module
 */

export interface OlsModel {
  kind: "ols";
  intercept: number;
  coef: number[];
}

const dot = (a: Float64Array, b: Float64Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

export function fitOls(X: readonly number[][], y: readonly number[]): OlsModel {
  const n = X.length;
  const p = X[0]?.length ?? 0;
  const cols = [
    new Float64Array(n).fill(1),
    ...Array.from({ length: p }, (_, j) => Float64Array.from(X, (r) => r[j]!)),
  ];
  const q: Float64Array[] = [];
  const kept: number[] = [];
  const R: number[][] = [];
  for (let j = 0; j < cols.length; j++) {
    const v = Float64Array.from(cols[j]!);
    const norm0 = Math.sqrt(dot(v, v));
    const r = new Array<number>(q.length).fill(0);
    for (let pass = 0; pass < 2; pass++) {
      for (let k = 0; k < q.length; k++) {
        const c = dot(q[k]!, v);
        r[k]! += c;
        for (let i = 0; i < n; i++) v[i]! -= c * q[k]![i]!;
      }
    }
    const norm = Math.sqrt(dot(v, v));
    if (norm0 === 0 || norm <= 1e-10 * norm0) continue;
    for (let i = 0; i < n; i++) v[i]! /= norm;
    q.push(v);
    R.push([...r, norm]);
    kept.push(j);
  }
  const qty = q.map((qk) => dot(qk, Float64Array.from(y)));
  const beta = new Array<number>(q.length).fill(0);
  for (let k = q.length - 1; k >= 0; k--) {
    let s = qty[k]!;
    for (let m = k + 1; m < q.length; m++) s -= R[m]![k]! * beta[m]!;
    beta[k] = s / R[k]![k]!;
  }
  const full = new Array<number>(p + 1).fill(0);
  kept.forEach((j, k) => (full[j] = beta[k]!));
  return { kind: "ols", intercept: full[0]!, coef: full.slice(1) };
}

export function predictOls(m: OlsModel, X: readonly number[][]): number[] {
  return X.map((row) => {
    let s = m.intercept;
    for (let j = 0; j < row.length; j++) s += m.coef[j]! * row[j]!;
    return s;
  });
}
