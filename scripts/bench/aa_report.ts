/**
 * `bench:tree --aa`: the merge gate's measured A/A false-admit rate — candidates that differ from the
 * incumbent only by a seed (src/tree/gate/aa.ts), 20 runs × 10 queries a seed, per metric — beside the earlier
 * per-query bootstrap rule on the same queries.
 *
 * @module
 */
import { measureAa } from "../../src/tree/gate/aa.ts";

/** Prints one line per metric: queries and runs admitted under the gate's rule and the earlier one. */
export function printAa(seeds: number): void {
  for (const metric of ["accuracy", "auc", "logloss"] as const) {
    const rs = Array.from(
      { length: seeds },
      (_, seed) =>
        measureAa({ runs: 20, queries: 10, devRows: 400, heldoutRows: 200, metric, seed, resamples: 300 }),
    );
    const sum = (f: (r: (typeof rs)[number]) => number) => rs.reduce((s, r) => s + f(r), 0);
    console.log(
      `A/A ${metric}: gate admitted ${sum((r) => r.admitted)} of ${
        sum((r) => r.queries)
      } seed-only queries ` +
        `(${sum((r) => r.runsAdmitting)} of ${sum((r) => r.runs)} runs); the per-query bootstrap rule ` +
        `${sum((r) => r.earlier!.admitted)} (${sum((r) => r.earlier!.runsAdmitting)} runs).`,
    );
    // `--gate-at end`: one comparison a run, at the bar of a single query (both tests at half the level).
    const one = Array.from(
      { length: seeds },
      (_, seed) =>
        measureAa({ runs: 200, queries: 1, devRows: 400, heldoutRows: 200, metric, seed, resamples: 0 }),
    );
    const admitted = one.reduce((s, r) => s + r.admitted, 0),
      queries = one.reduce((s, r) => s + r.queries, 0);
    console.log(
      `A/A ${metric}, one comparison a run (--gate-at end): gate admitted ${admitted} of ${queries}.`,
    );
  }
}
