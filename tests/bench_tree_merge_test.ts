import { equal, ok } from "node:assert/strict";
import { mergedReport } from "../scripts/bench/tree_merge.ts";

// bench:tree --merge pools runs of other seeds into one report, and never counts a result twice.
Deno.test("bench:tree --merge pools two runs' seeds and refuses a result in both", () => {
  const tmp = Deno.makeTempDirSync({ prefix: "arrow-bench-merge-" });
  try {
    const file = (name: string, seeds: number[], gain: number) => {
      const results = seeds.flatMap((seed) => [
        { dataset: "auto_mpg", method: "tree", start: "default", seed, test: 0.8 + gain + seed * 1e-3 },
        { dataset: "auto_mpg", method: "random", start: "default", seed, test: 0.8 + seed * 1e-3 },
      ]);
      const references = seeds.map((seed) => ({
        dataset: "auto_mpg",
        seed,
        scores: { hgb: 0.79, xgboost: 0.78, linear: 0.7 },
      }));
      Deno.writeTextFileSync(`${tmp}/${name}`, JSON.stringify({ results, references }));
      return `${tmp}/${name}`;
    };
    const a = file("a.json", [0, 1, 2], 0.01), b = file("b.json", [3, 4], 0.02);
    const m = mergedReport([a, b], () => "r2");
    ok("text" in m, JSON.stringify(m));
    ok(m.text.includes("seeds 0, 1, 2, 3, 4"), m.text);
    // tree − random over the five seeds: (3 × 0.01 + 2 × 0.02) / 5 = 0.014.
    ok(m.text.includes("tree − random: +0.0140"), m.text);
    const twice = mergedReport([a, a], () => "r2");
    ok("error" in twice);
    equal(twice.error.includes("auto_mpg/tree/default/0 is in more than one file"), true, twice.error);
    ok("error" in mergedReport([`${tmp}/missing.json`], () => "r2"));
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});
