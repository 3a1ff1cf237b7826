/**
 * The tree benchmark's score tables, pure: final-test scores per dataset × start × method against the best
 * reference fit on the same rows (paired by seed), and the summed paired differences tree − random and
 * tree − tree-no-insights, every difference oriented so that positive means better.
 *
 * @module
 */
import { type MetricName, METRICS } from "../../src/tabular/mod.ts";
import { type Interval, interval, pairedDiffs, showInterval, sumOverDatasets } from "./paired.ts";
import { type Reference, REFERENCES } from "./refs.ts";

/** How far below the best reference the tree may land and still pass (the rule). */
export const PASS_MARGIN = 0.005;

export interface ScoreRun {
  dataset: string;
  method: string;
  start: string;
  seed: number;
  test: number;
}

export interface RefRun {
  dataset: string;
  seed: number;
  scores: Record<Reference, number>;
}

export interface VsBest {
  dataset: string;
  start: string;
  method: string;
  mean: number;
  /** Paired (by seed) score − best reference, positive = better than it. */
  vsBest: Interval;
  pass: boolean;
}

export interface Summed {
  start: string;
  label: string;
  diff: Interval;
}

export interface Report {
  best: Record<string, { reference: Reference; mean: number }>;
  vsBest: VsBest[];
  summed: Summed[];
  lines: string[];
}

const sign = (m: MetricName) => (METRICS[m].direction === "higher" ? 1 : -1);
const bySeed = (xs: { seed: number; v: number }[]) => new Map(xs.map((x) => [x.seed, x.v]));

export function scoreReport(
  runs: readonly ScoreRun[],
  refs: readonly RefRun[],
  o: { datasets: string[]; methods: string[]; starts: string[]; metricOf: (d: string) => MetricName },
): Report {
  const best: Report["best"] = {};
  const vsBest: VsBest[] = [];
  const lines = [
    "| dataset (metric) | start | method | final-test score | − best reference (paired) | pass (≥ best − 0.005) |",
    "|---|---|---|---|---|---|",
  ];
  for (const d of o.datasets) {
    const metric = o.metricOf(d), sg = sign(metric);
    const rs = refs.filter((r) => r.dataset === d);
    if (rs.length) {
      const ranked = REFERENCES.map((ref) => ({ ref, i: interval(rs.map((r) => r.scores[ref])) }))
        .sort((a, b) => sg * (b.i.mean - a.i.mean));
      best[d] = { reference: ranked[0]!.ref, mean: ranked[0]!.i.mean };
      for (const { ref, i } of ranked) {
        lines.push(
          `| ${d} (${metric}) | — | ref ${ref}${ref === ranked[0]!.ref ? " (best)" : ""} | ${
            showInterval(i)
          } | | |`,
        );
      }
    }
    const bestRef = best[d]?.reference;
    for (const start of o.starts) {
      for (const method of o.methods) {
        const own = runs.filter((r) => r.dataset === d && r.start === start && r.method === method);
        if (!own.length) continue;
        const mean = interval(own.map((r) => r.test));
        let cell = "n/a", passCell = "n/a";
        if (bestRef) {
          const diffs = pairedDiffs(
            bySeed(own.map((r) => ({ seed: r.seed, v: sg * r.test }))),
            bySeed(rs.map((r) => ({ seed: r.seed, v: sg * r.scores[bestRef] }))),
          );
          const i = interval(diffs);
          const pass = i.mean >= -PASS_MARGIN;
          vsBest.push({ dataset: d, start, method, mean: mean.mean, vsBest: i, pass });
          cell = showInterval(i);
          passCell = pass ? "yes" : "**no**";
        }
        lines.push(
          `| ${d} (${metric}) | ${start} | ${method} | ${showInterval(mean)} | ${cell} | ${passCell} |`,
        );
      }
    }
  }
  const summed: Summed[] = [];
  const pairs = [["tree", "random", "tree − random"], ["tree", "tree-no-insights", "insights − no-insights"]];
  for (const start of o.starts) {
    for (const [a, b, label] of pairs) {
      if (!o.methods.includes(a!) || !o.methods.includes(b!)) continue;
      const perDataset = new Map<string, Map<number, number>>();
      for (const d of o.datasets) {
        const sg = sign(o.metricOf(d));
        const pick = (m: string) =>
          bySeed(
            runs.filter((r) => r.dataset === d && r.start === start && r.method === m).map((r) => ({
              seed: r.seed,
              v: sg * r.test,
            })),
          );
        const diffs = pairedDiffs(pick(a!), pick(b!));
        const seeds = [...pick(a!).keys()].sort((x, y) => x - y);
        perDataset.set(d, new Map(seeds.map((s, k) => [s, diffs[k]!])));
      }
      summed.push({ start, label: label!, diff: interval(sumOverDatasets(perDataset)) });
    }
  }
  if (summed.length) {
    lines.push(
      "",
      `Summed over ${o.datasets.length} datasets (each in its metric, oriented so + = better), paired by seed, ` +
        "95 % t-interval over seeds:",
    );
    for (const s of summed) lines.push(`- ${s.start} start, ${s.label}: ${showInterval(s.diff)}`);
  }
  return { best, vsBest, summed, lines };
}
