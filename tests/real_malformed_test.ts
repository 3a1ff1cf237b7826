/**
 * A long node whose metrics.jsonl holds malformed lines and which claims more than its readable lines show:
 * FALSE_COMPLETION names the observed best and how many lines Arrow could not read, so the user knows the
 * observed best covers only the rest.
 */
import { equal } from "node:assert/strict";
import { findBwrap } from "../src/cli/sandbox.ts";
import { loadPlan } from "../src/graph/load.ts";
import { runReal } from "./helpers/real.ts";

const SCRIPT = [
  `echo '{"step": 0, "dev_r2": 0.3}' >> metrics.jsonl`,
  `echo 'not json' >> metrics.jsonl`,
  `echo '{"step": 1, "dev_r2": "0.99"}' >> metrics.jsonl`,
  `echo '{"step": 2, "dev_r2": 0.5}' >> metrics.jsonl`,
  `echo '{"node": "T", "score": 0.9}' > results.json`,
].join("; ");

Deno.test("malformed metrics lines are counted and named in a refused claim's evidence", async () => {
  const bwrap = await findBwrap();
  const r0 = loadPlan(
    `question: q
protocol: { version: p1, metric: dev_r2, direction: maximize }
nodes:
  - id: T
    kind: long
    role: other
    observe_every: 1s
    acceptance: ["@manifest"]
    worker: { type: command, argv: ["/bin/sh", "-c", ${JSON.stringify(SCRIPT)}] }
edges: []
`,
    "malformed.yaml",
  );
  if (!r0.plan) throw new Error(JSON.stringify(r0.errors));
  const r = await runReal("malformed", r0.plan, [], { bwrap, maxTicks: 200 });
  try {
    const first = r.incidents[0]!;
    equal(first.type, "FALSE_COMPLETION", JSON.stringify(r.incidents));
    const ev = first.evidence as { observed_best?: number; malformed_metrics_lines?: number };
    equal(ev.observed_best, 0.5);
    equal(ev.malformed_metrics_lines, 2);
  } finally {
    await Deno.remove(r.dir, { recursive: true });
  }
});
