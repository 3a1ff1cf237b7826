import { ok } from "node:assert/strict";
import { measureAa } from "./aa.ts";

for (const metric of ["accuracy", "auc"] as const) {
  Deno.test(`A/A (${metric}): seed-only candidates are admitted in ≤ 5 % of gate queries, fewer than the per-query rule`, () => {
    const r = measureAa({
      runs: 20,
      queries: 10,
      devRows: 400,
      heldoutRows: 200,
      metric,
      seed: 1,
      resamples: 300,
    });
    console.log(`A/A ${metric}: ${JSON.stringify(r)}`);
    ok(r.queries === 200);
    ok(r.admitted / r.queries <= 0.05, `false-admit rate per query ${r.admitted}/${r.queries}`);
    ok(r.runsAdmitting / r.runs <= 0.1, `runs with any false admission ${r.runsAdmitting}/${r.runs}`);
    ok(
      r.earlier !== null && r.earlier.admitted > r.admitted,
      `the earlier rule admits more: ${JSON.stringify(r)}`,
    );
  });
}
