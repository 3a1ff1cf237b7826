/**
 * A few hundred seeded fuzz inputs per parser in the normal suite (small ones; `deno task fuzz` runs
 * 10,000 each, huge ones included): the plan loader, the fault-script loader, the manifest parser, the
 * metrics tail and the CSV reader never throw anything but their documented error and give every rejection
 * a clear, printable message with its position.
 *
 * @module
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { allTargets, describeFinding, runTarget } from "./fuzz_targets.ts";

const COUNT = 300;
const SEED = 7;

for (const [i, target] of allTargets().entries()) {
  Deno.test(`${target.name} survives ${COUNT} fuzzed inputs with clear messages`, () => {
    const r = runTarget(target, COUNT, SEED + i, false);
    equal(r.inputs, COUNT);
    ok(r.accepted + r.rejected + r.findings.length >= COUNT);
    deepEqual(r.findings.map(describeFinding), []);
  });
}

Deno.test("fuzz inputs are the same for the same seed", () => {
  const [plan] = allTargets();
  const a = runTarget(plan!, 40, 99, false);
  const b = runTarget(plan!, 40, 99, false);
  deepEqual([a.accepted, a.rejected], [b.accepted, b.rejected]);
  ok(a.rejected > 0, "mutations make the loader reject");
});
