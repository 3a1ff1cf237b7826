/**
 * `bench:tree --merge a.json,b.json`: the score report over several runs' JSON outputs, pooled — runs of other
 * seeds (`--seed-from`) add to a first run's. A result or reference of the same dataset, method, start and
 * seed in two files is refused, not counted twice.
 *
 * @module
 */
import type { MetricName } from "../../src/tabular/mod.ts";
import { type RefRun, scoreReport, type ScoreRun } from "./tree_report.ts";

export function mergedReport(
  files: string[],
  metricOf: (dataset: string) => MetricName,
): { text: string } | { error: string } {
  const results: ScoreRun[] = [];
  const refRuns: RefRun[] = [];
  const seen = new Set<string>();
  for (const f of files) {
    let o: { results: ScoreRun[]; references: RefRun[] };
    try {
      o = JSON.parse(Deno.readTextFileSync(f));
    } catch (e) {
      return { error: `cannot read ${f}: ${e instanceof Error ? e.message : e}` };
    }
    for (const r of o.results ?? []) {
      const key = `${r.dataset}/${r.method}/${r.start}/${r.seed}`;
      if (seen.has(key)) return { error: `${key} is in more than one file (${f})` };
      seen.add(key);
      results.push(r);
    }
    for (const r of o.references ?? []) {
      const key = `ref/${r.dataset}/${r.seed}`;
      if (seen.has(key)) {
        return { error: `the references of ${r.dataset} seed ${r.seed} are in more than one file` };
      }
      seen.add(key);
      refRuns.push(r);
    }
  }
  const uniq = <T>(xs: T[]) => [...new Set(xs)];
  const report = scoreReport(results, refRuns, {
    datasets: uniq(results.map((r) => r.dataset)),
    methods: uniq(results.map((r) => r.method)),
    starts: uniq(results.map((r) => r.start)),
    metricOf,
  });
  const seeds = uniq(results.map((r) => r.seed)).sort((a, b) => a - b);
  return {
    text: [`Pooled from ${files.join(", ")}: seeds ${seeds.join(", ")}.`, "", ...report.lines].join("\n"),
  };
}
