import { equal, ok } from "node:assert/strict";
import { mulberry32, type Prediction } from "../../tabular/mod.ts";
import { ACCEPT_EPS } from "../../thresholds.ts";
import { classify, classifyRows, meanStd } from "../ideate/insight.ts";
import {
  gateZ,
  normalCdf,
  normalQuantile,
  pairedLoss,
  pairedLossOf,
  rowLosses,
  signedRankZ,
  tQuantile,
} from "./row_loss.ts";
import { significant } from "./gate_rule.ts";

const close = (a: number, b: number, tol: number, what: string) =>
  ok(Math.abs(a - b) <= tol, `${what}: ${a} is not within ${tol} of ${b}`);

function normals(seed: number): () => number {
  const rng = mulberry32(seed);
  return () => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
}

const binary = (values: number[]): Prediction => ({
  task: "binary",
  k: 1,
  values: Float64Array.from(values),
});

Deno.test("normalQuantile, gateZ and tQuantile give the textbook values", () => {
  close(normalQuantile(0.975), 1.959964, 1e-6, "z 0.975");
  close(normalQuantile(0.95), 1.644854, 1e-6, "z 0.95");
  close(normalQuantile(1e-4), -3.719016, 1e-5, "z 1e-4");
  close(gateZ(1, 0.05), 1.644854, 1e-6, "one planned query");
  close(gateZ(10, 0.05), 2.575829, 1e-5, "ten planned queries: 0.5 % each");
  equal(tQuantile(4), 2.776);
  close(tQuantile(20), 2.086, 2e-3, "t 20 df by Cornish–Fisher");
  close(tQuantile(60), 2.000, 2e-3, "t 60 df");
});

Deno.test("rowLosses: log-loss for class metrics (clipped), squared and absolute error for regression", () => {
  const y = Float64Array.from([1, 0]);
  const l = rowLosses("accuracy", y, binary([0.8, 0.8]));
  close(l[0]!, -Math.log(0.8), 1e-12, "positive row");
  close(l[1]!, -Math.log(0.2), 1e-12, "negative row");
  ok(
    Number.isFinite(rowLosses("auc", y, binary([0, 1]))[0]!),
    "a certain wrong answer is clipped, not infinite",
  );
  const r: Prediction = { task: "regression", k: 1, values: Float64Array.from([1, 5]) };
  const yr = Float64Array.from([2, 3]);
  equal(rowLosses("r2", yr, r).join(), "1,4");
  equal(rowLosses("mae", yr, r).join(), "1,2");
  const m: Prediction = { task: "multiclass", k: 3, values: Float64Array.from([0.2, 0.5, 0.3]) };
  close(rowLosses("logloss", Float64Array.from([2]), m)[0]!, -Math.log(0.3), 1e-12, "multiclass row");
});

Deno.test("pairedLossOf: identical losses give z 0; a constant gain is infinitely sure", () => {
  const a = Float64Array.from([0.5, 0.2, 0.9]);
  equal(pairedLossOf("logloss", a, a).z, 0);
  const better = a.map((x) => x - 0.1);
  const p = pairedLossOf("logloss", better, a);
  close(p.gain, 0.1, 1e-12, "gain");
  ok(p.z > 1e9, `z ${p.z}`);
});

/** Binary labels from true probabilities, and two prediction sets: each the truth's logit plus noise. */
function trial(rng: () => number, normal: () => number, n: number, candNoise: number, refNoise: number) {
  const y = new Float64Array(n), c: number[] = [], r: number[] = [];
  for (let i = 0; i < n; i++) {
    const eta = 1.5 * normal();
    y[i] = rng() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
    c.push(1 / (1 + Math.exp(-(eta + candNoise * normal()))));
    r.push(1 / (1 + Math.exp(-(eta + refNoise * normal()))));
  }
  return pairedLoss("accuracy", y, binary(c), binary(r));
}

Deno.test("paired loss: a change with no effect is rarely beyond the bar, a real one nearly always", () => {
  const rng = mulberry32(11), normal = normals(12);
  const N = 1000;
  let null2 = 0, null1 = 0, real = 0;
  for (let t = 0; t < N; t++) {
    const z = trial(rng, normal, 200, 0.6, 0.6).z;
    if (Math.abs(z) >= normalQuantile(0.975)) null2++;
    if (z >= gateZ(1)) null1++;
    if (trial(rng, normal, 300, 0.0, 1.2).z >= gateZ(10)) real++;
  }
  ok(null2 / N <= 0.07, `two-sided 5 % rate under no effect: ${null2 / N}`);
  ok(null2 / N >= 0.02, `the statistic is not degenerate: ${null2 / N}`);
  ok(null1 / N <= 0.07, `one-sided 5 % rate under no effect: ${null1 / N}`);
  ok(real / N >= 0.85, `a model with less noise on 300 rows is found at the 10-query bar: ${real / N}`);
});

Deno.test("gateZ: the run's false-admit rate stays ≤ 5 % over all its queries; 5 % per query does not", () => {
  const rng = mulberry32(21), normal = normals(22);
  // 2,000 runs: the rate's own standard error is about 0.5 %.
  const runs = 2000, queries = 9;
  let budgeted = 0, perQuery = 0;
  for (let r = 0; r < runs; r++) {
    let a = false, b = false;
    for (let q = 0; q < queries; q++) {
      const z = trial(rng, normal, 150, 0.6, 0.6).z;
      if (z >= gateZ(queries)) a = true;
      if (z >= gateZ(1)) b = true;
    }
    budgeted += a ? 1 : 0;
    perQuery += b ? 1 : 0;
  }
  ok(budgeted / runs <= 0.06, `runs with a false admission at the budgeted bar: ${budgeted / runs}`);
  ok(perQuery / runs >= 0.25, `runs with a false admission at 5 % per query: ${perQuery / runs}`);
});

Deno.test("classify: no-effect fold deltas are labelled ≤ 5 % of the time (1 SE labelled ~1 in 3), a real effect is", () => {
  const normal = normals(31);
  const N = 4000, k = 5, sd = 0.01;
  let labelled = 0, hurt = 0, hurt1 = 0, helped = 0;
  for (let t = 0; t < N; t++) {
    const zero = Array.from({ length: k }, () => sd * normal());
    const d = { ...meanStd(zero), folds: zero };
    const o = classify(d);
    if (o !== "neutral") labelled++;
    if (o === "hurt") hurt++;
    if (classify(d, 1) === "hurt") hurt1++;
    const real = Array.from({ length: k }, () => 4 * ACCEPT_EPS + 0.002 * normal());
    if (classify({ ...meanStd(real), folds: real }) === "helped") helped++;
  }
  // 4,000 trials: the rate's own standard error is about 0.35 %, so 6 % is the design's 5 % plus noise.
  ok(labelled / N <= 0.06, `helped or hurt under no effect: ${labelled / N}`);
  ok(hurt / N <= 0.035, `hurt under no effect: ${hurt / N}`);
  ok(hurt1 / N >= 0.12, `the 1-SE rule's hurt rate, for contrast: ${hurt1 / N}`);
  ok(helped / N >= 0.95, `a steady gain of 4 × ACCEPT_EPS: ${helped / N}`);
});

Deno.test("signedRankZ: Wilcoxon's signed-rank z with averaged ties and zeros dropped, pinned", () => {
  // All four positive: W+ = 10, mean 5, variance 4·5·9/24 = 7.5.
  ok(Math.abs(signedRankZ([1, 2, 3, 4]) - 5 / Math.sqrt(7.5)) < 1e-12);
  // |1| tied twice (ranks 1.5), 2 ranked 3: W+ = 4.5, mean 3, variance 3.5 − (2³ − 2)/48.
  ok(Math.abs(signedRankZ([1, -1, 0, 2]) - 1.5 / Math.sqrt(3.375)) < 1e-12);
  equal(signedRankZ([0, 0]), 0);
  ok(signedRankZ([-1, -2, -3]) < 0);
});

Deno.test("significant(): the mean's z at the run's level; a large signed-rank z admits nothing alone", () => {
  const loss = (z: number, rank_z: number) => ({
    loss: "logloss" as const,
    gain: 0.01,
    se: 0.01,
    n: 100,
    z,
    rank_z,
  });
  const p = (z: number, rank_z: number) => ({ gain: 0.01, se: 0.01, n: 100, b: 0, loss: loss(z, rank_z) });
  const bar = gateZ(3);
  equal(significant(p(bar + 0.01, 0), 3), true);
  equal(significant(p(bar - 0.01, 0), 3), false);
  // Better on most rows, not on average beyond noise (a model confidently wrong on a few rows): not admitted.
  equal(significant(p(1.1, 6.4), 3), false);
  // A comparison recorded before the rank statistic: the same rule.
  const { rank_z: _, ...old } = loss(bar + 0.01, 0);
  equal(significant({ gain: 0.01, se: 0.01, n: 100, b: 0, loss: old }, 3), true);
});

Deno.test("normalCdf: the standard normal distribution, the inverse of normalQuantile", () => {
  ok(Math.abs(normalCdf(0) - 0.5) < 1e-8);
  for (const p of [0.001, 0.025, 0.3, 0.5, 0.8, 0.975, 0.9995]) {
    ok(Math.abs(normalCdf(normalQuantile(p)) - p) < 2e-7, `Φ(Φ⁻¹(${p}))`);
  }
  ok(Math.abs(normalCdf(1.5) + normalCdf(-1.5) - 1) < 1e-12, "symmetric");
  equal(normalCdf(Infinity), 1);
  equal(normalCdf(-Infinity), 0);
});

Deno.test("classifyRows: labels on every dev row; no effect ≤ 5 %, and a real gain too small for 5 folds is seen", () => {
  const normal = normals(47);
  const N = 2000, rows = 300, k = 5;
  // Regression rows: y = f + noise; a candidate with no effect is the reference plus its own fit noise, a
  // real gain removes a fifth of the reference's error on every row.
  let labelled = 0, rowsHelped = 0, foldsHelped = 0;
  const fold = (i: number) => i % k;
  for (let t = 0; t < N; t++) {
    const y = new Float64Array(rows), ref = new Float64Array(rows), same = new Float64Array(rows);
    const better = new Float64Array(rows);
    for (let i = 0; i < rows; i++) {
      y[i] = normal();
      const err = 0.5 * normal();
      ref[i] = y[i]! + err;
      same[i] = y[i]! + 0.5 * normal();
      better[i] = y[i]! + 0.8 * err + 0.1 * normal();
    }
    const p = (v: Float64Array) => ({ task: "regression" as const, k: 1, values: v });
    // Fold deltas of R² (higher is better), as the tree measures them.
    const deltas = (c: Float64Array) =>
      Array.from({ length: k }, (_, f) => {
        const idx = [...y.keys()].filter((i) => fold(i) === f);
        const yv = idx.map((i) => y[i]!), m = yv.reduce((a, b) => a + b, 0) / yv.length;
        const ss = yv.reduce((a, b) => a + (b - m) ** 2, 0);
        const r2 = (q: Float64Array) => 1 - idx.reduce((a, i) => a + (y[i]! - q[i]!) ** 2, 0) / ss;
        return r2(c) - r2(ref);
      });
    const d0 = deltas(same), d1 = deltas(better);
    const o0 = classifyRows({ ...meanStd(d0), folds: d0 }, pairedLoss("r2", y, p(same), p(ref)));
    if (o0 !== "neutral") labelled++;
    if (classifyRows({ ...meanStd(d1), folds: d1 }, pairedLoss("r2", y, p(better), p(ref))) === "helped") {
      rowsHelped++;
    }
    if (classify({ ...meanStd(d1), folds: d1 }) === "helped") foldsHelped++;
  }
  ok(labelled / N <= 0.06, `helped or hurt under no effect: ${labelled / N}`);
  ok(rowsHelped / N >= 0.9, `the real gain, labelled by rows: ${rowsHelped / N}`);
  ok(rowsHelped > foldsHelped, `rows see it more often than five folds: ${rowsHelped} vs ${foldsHelped}`);
});

Deno.test("signedRankZ() equals the Wilcoxon signed-rank z with average ranks written out, ties and zeros included", () => {
  const reference = (d: number[]) => {
    const nz = d.filter((x) => x !== 0 && Number.isFinite(x));
    const n = nz.length;
    if (!n) return 0;
    const order = nz.map((_, i) => i).sort((a, b) => Math.abs(nz[a]!) - Math.abs(nz[b]!));
    let w = 0, tie = 0;
    for (let i = 0; i < n;) {
      let j = i;
      while (j + 1 < n && Math.abs(nz[order[j + 1]!]!) === Math.abs(nz[order[i]!]!)) j++;
      for (let k = i; k <= j; k++) if (nz[order[k]!]! > 0) w += (i + j + 2) / 2;
      tie += (j - i + 1) ** 3 - (j - i + 1);
      i = j + 1;
    }
    const v = (n * (n + 1) * (2 * n + 1)) / 24 - tie / 48;
    return v > 0 ? (w - (n * (n + 1)) / 4) / Math.sqrt(v) : 0;
  };
  let seed = 9;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let t = 0; t < 600; t++) {
    const n = Math.floor(rnd() * 60), levels = 1 + Math.floor(rnd() * 4);
    const d = Array.from(
      { length: n },
      () =>
        t % 3 === 0
          ? Math.round((rnd() - 0.5) * 2 * levels)
          : t % 3 === 1
          ? rnd() - 0.5
          : rnd() < 0.1
          ? NaN
          : rnd() - 0.5,
    );
    const got = signedRankZ(d), want = reference(d);
    ok(Object.is(got, want), `case ${t}: ${got} vs ${want}`);
  }
});
