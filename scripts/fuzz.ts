/**
 * `deno task fuzz`: at least 10,000 seeded, generated or mutated inputs for each parser that reads what a
 * user, a planner or a worker wrote — plans, fault scripts, manifests, metrics lines, CSV — printing counts
 * and timing per target and every finding with its input. Exit 1 when anything was found.
 *
 * Then the scale figures of scripts/fuzz_scale.ts (skip them with --no-scale).
 *
 * Usage: deno task fuzz [--count N] [--seed S] [--only SUBSTRING] [--no-scale]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { allTargets, describeFinding, runTarget } from "../tests/fuzz_targets.ts";
import { scaleReport } from "./fuzz_scale.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    count: { type: "string" },
    seed: { type: "string" },
    only: { type: "string" },
    "no-scale": { type: "boolean" },
  },
});
const count = Number(values.count ?? 10_000);
const seed = Number(values.seed ?? 20260101);
if (!Number.isSafeInteger(count) || count < 1 || !Number.isSafeInteger(seed)) {
  console.error("fuzz: --count and --seed must be whole numbers");
  Deno.exit(1);
}

let findings = 0;
console.log(`fuzz: ${count} inputs per target, seed ${seed}`);
for (const [i, target] of allTargets().entries()) {
  if (values.only && !target.name.includes(values.only)) continue;
  const r = runTarget(target, count, seed + i);
  console.log(
    `${r.target.padEnd(44)} ${String(r.inputs).padStart(6)} inputs  ${
      String(r.accepted).padStart(6)
    } accepted  ` +
      `${String(r.rejected).padStart(6)} rejected  ${(r.ms / 1000).toFixed(1).padStart(6)} s  ` +
      `(${(r.ms / r.inputs).toFixed(2)} ms/input, slowest ${r.slowestMs.toFixed(0)} ms)  ` +
      `${r.findings.length} finding${r.findings.length === 1 ? "" : "s"}`,
  );
  for (const f of r.findings.slice(0, 5)) console.log(describeFinding(f));
  if (r.findings.length > 5) console.log(`  … and ${r.findings.length - 5} more`);
  findings += r.findings.length;
}
let scaled = true;
if (!values["no-scale"] && !values.only) {
  console.log("scale:");
  scaled = scaleReport();
}
Deno.exit(findings || !scaled ? 1 : 0);
