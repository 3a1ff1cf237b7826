/**
 * The A/A measurement of the merge gate's false-admit rate: candidates that differ from the incumbent only by
 * the model's seed (a subsampled GBDT, so the seed changes the fit but not its expected quality) are sent
 * through the gate's rule on held-out rows, over many simulated runs, and the admissions counted — per query
 * and per run — under the gate's rule and under the earlier rule (Z_GATE bootstrap standard errors per
 * query) for comparison. Every candidate is queried (no dev screen), so this is the rate over the most
 * queries a run could make.
 *
 * @module
 */
import { fitGbdt, type GbdtParams, predictGbdt } from "../../tabular/gbdt.ts";
import type { Matrix } from "../../tabular/encode.ts";
import { type MetricName, mulberry32, type Prediction, score, subSeed } from "../../tabular/mod.ts";
import { ACCEPT_EPS, improves } from "../../thresholds.ts";
import { pairedBootstrap } from "./paired.ts";
import { pairedLoss } from "./row_loss.ts";
import { significant } from "../step.ts";

export interface AaOptions {
  /** Simulated runs; each has one incumbent and `queries` seed-only candidates. */
  runs: number;
  /** Gate queries per run (the run's planned comparisons). */
  queries: number;
  devRows: number;
  heldoutRows: number;
  metric: Extract<MetricName, "accuracy" | "auc" | "logloss">;
  seed: number;
  /** Bootstrap resamples for the earlier rule's comparison (0: skip it). */
  resamples: number;
}

export interface AaResult {
  queries: number;
  runs: number;
  /** Queries the gate's rule admitted, and runs in which it admitted at least one. */
  admitted: number;
  runsAdmitting: number;
  /** The same for the earlier per-query rule (bootstrap at Z_GATE); null when skipped. */
  earlier: { admitted: number; runsAdmitting: number } | null;
}

/** A binary task with a few informative and a few noise columns, logistic in a sum of them. */
function synthetic(n: number, rngSeed: number): { X: Matrix; y: Float64Array } {
  const rng = mulberry32(rngSeed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
  const p = 6;
  const columns = Array.from({ length: p }, () => new Float64Array(n));
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < p; j++) columns[j]![i] = normal();
    const eta = 1.2 * columns[0]![i]! - 0.8 * columns[1]![i]! + 0.6 * columns[2]![i]! * columns[3]![i]!;
    y[i] = rng() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
  }
  return { X: { names: columns.map((_, j) => `x${j}`), columns, nRows: n }, y };
}

function fit(X: Matrix, y: Float64Array, seed: number): (Z: Matrix) => Prediction {
  const params: Partial<GbdtParams> = { stages: 40, maxDepth: 3, subsample: 0.7, seed };
  const model = fitGbdt(X, y, "binary", ["0", "1"], params);
  return (Z) => predictGbdt(model, Z);
}

/** Runs the A/A measurement (deterministic for `seed`). */
export function measureAa(o: AaOptions): AaResult {
  let admitted = 0, runsAdmitting = 0, oldAdmitted = 0, oldRuns = 0;
  for (let r = 0; r < o.runs; r++) {
    const dev = synthetic(o.devRows, subSeed(o.seed, `aa:dev:${r}`));
    const held = synthetic(o.heldoutRows, subSeed(o.seed, `aa:heldout:${r}`));
    const incPred = fit(dev.X, dev.y, subSeed(o.seed, `aa:inc:${r}`))(held.X);
    const incScore = score(o.metric, held.y, incPred);
    let any = false, oldAny = false;
    for (let q = 0; q < o.queries; q++) {
      const cand = fit(dev.X, dev.y, subSeed(o.seed, `aa:cand:${r}:${q}`))(held.X);
      const candScore = score(o.metric, held.y, cand);
      const sign = o.metric === "logloss" ? -1 : 1;
      if (!improves(incScore, candScore, ACCEPT_EPS, sign === 1 ? "maximize" : "minimize")) continue;
      const loss = pairedLoss(o.metric, held.y, cand, incPred);
      const boot = o.resamples > 0
        ? pairedBootstrap(
          o.metric,
          held.y,
          cand,
          incPred,
          sign,
          subSeed(o.seed, `aa:b:${r}:${q}`),
          o.resamples,
        )
        : null;
      if (significant({ ...(boot ?? { gain: 0, se: NaN, n: held.y.length, b: 0 }), loss }, o.queries)) {
        admitted++;
        any = true;
      }
      if (boot && significant(boot)) {
        oldAdmitted++;
        oldAny = true;
      }
    }
    if (any) runsAdmitting++;
    if (oldAny) oldRuns++;
  }
  return {
    queries: o.runs * o.queries,
    runs: o.runs,
    admitted,
    runsAdmitting,
    earlier: o.resamples > 0 ? { admitted: oldAdmitted, runsAdmitting: oldRuns } : null,
  };
}
