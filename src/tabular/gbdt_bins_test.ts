import { deepEqual, equal } from "node:assert/strict";
import type { Matrix } from "./encode.ts";
import { binRows, binTraining, fitEdges } from "./gbdt_bins.ts";
import { mulberry32 } from "./prng.ts";

/** Columns that reach every path of binTraining: cells, few values, quantiles, and the sorting fallback. */
function columns(n: number, seed: number): Float64Array[] {
  const rng = mulberry32(seed);
  const make = (f: (i: number) => number) => Float64Array.from({ length: n }, (_, i) => f(i));
  const gap = (x: number) => (rng() < 0.1 ? NaN : x);
  return [
    make(() => gap(rng() * 2 - 1)),
    make(() => gap(Math.round(rng() * 4))),
    make(() => (rng() < 0.5 ? 0 : 1)),
    make(() => 0.25),
    make(() => NaN),
    make(() => gap(Math.exp(rng() * 30))), // heavily skewed
    make(() => gap(rng() < 0.98 ? 1 : 1e300)), // one cell holds almost everything
    make(() => (rng() < 0.5 ? -0 : 0) + (rng() < 0.5 ? 0 : Math.round(rng() * 300) - 150)),
    make(() => gap(Math.round(rng() * 240) / 7)), // ≤ 255 distinct values sharing cells
    make(() => Math.round(rng() * 300)), // a little over 255 distinct values
    make(() => (rng() < 0.5 ? -Number.MAX_VALUE : Number.MAX_VALUE)), // a range too wide for cells
    make(() => (rng() < 0.5 ? -Infinity : rng())),
    make((i) => i % 3 === 0 ? 5e-324 : i % 3 === 1 ? -5e-324 : 0), // subnormal neighbours of zero
    make(() => Math.floor(rng() * 1000) / 1000),
  ];
}

Deno.test("binTraining() finds the same edges and bins as fitEdges() + binRows(), bit for bit", () => {
  for (const [n, seed] of [[1, 1], [7, 2], [40, 3], [1000, 4], [30_000, 5]] as const) {
    const cols = columns(n, seed);
    const X: Matrix = { names: cols.map((_, j) => `x${j}`), columns: cols, nRows: n };
    for (const maxBins of [2, 16, 255]) {
      const want = fitEdges(X, maxBins), got = binTraining(X, maxBins);
      equal(got.edges.length, want.length);
      got.edges.forEach((e, f) => {
        deepEqual(
          Array.from(e, (x) => Object.is(x, -0) ? 0 : x),
          Array.from(want[f]!, (x) => Object.is(x, -0) ? 0 : x),
          `n ${n}, ${maxBins} bins, feature ${f}`,
        );
      });
      const ref = binRows(X, want);
      deepEqual(got.data.nBins, ref.nBins);
      deepEqual(got.data.offset, ref.offset);
      deepEqual(got.data.slots, ref.slots, `n ${n}, ${maxBins} bins: slots`);
      got.data.cols.forEach((c, f) =>
        deepEqual(c, ref.cols[f], `n ${n}, ${maxBins} bins, feature ${f}: bins`)
      );
    }
  }
});
