import { equal, match, ok } from "node:assert/strict";
import { loadPlan } from "../graph/load.ts";
import type { NodeObs, Observations } from "../model/observe.ts";
import { emptyNodeObs, emptyObservations } from "../model/observe.ts";
import type { Incident, RunState } from "../model/state.ts";
import { prepare } from "./prepare.ts";
import { step, type StepResult } from "./step.ts";

/** One long trainer under @manifest (nothing recomputes its score): its trajectory is the only check. */
const PLAN = `
question: q
protocol: { version: p1, metric: dev_r2, direction: maximize }
nodes:
  - { id: T, kind: long, role: other, acceptance: ["@manifest"] }
edges: []
`;

function tick(s: RunState, o: Partial<NodeObs> = {}): StepResult {
  const obs: Observations = emptyObservations(s.tick + 1);
  if (s.nodes.T!.status === "running") obs.nodes.T = { ...emptyNodeObs(s.nodes.T!.fp), ...o };
  return step(s, obs);
}

const exit = (score: number): Partial<NodeObs> => ({
  done: {
    exit: 0,
    accept: { argv: ["@manifest"], code: 0, stdout: "", stderr: "" },
    manifest: { node: "T", score },
  },
});

function run(metrics: { step: number; value: number }[], score: number): { r: StepResult; inc: Incident[] } {
  const r0 = loadPlan(PLAN, "c.yaml");
  if (!r0.plan) throw new Error(r0.errors.map((e) => e.message).join("; "));
  let s = tick(prepare(r0.plan, [], "unit", "real")).state;
  if (metrics.length) s = tick(s, { metrics }).state;
  const r = tick(s, exit(score));
  return { r, inc: r.events.flatMap((e) => e.e === "incident" ? [e.incident] : []) };
}

Deno.test("claim() refuses a long node's score under @manifest when it logged no metrics line at all", () => {
  const { r, inc } = run([], 0.99);
  equal(inc[0]?.type, "FALSE_COMPLETION");
  match(String((inc[0]!.evidence as { problem?: string }).problem), /wrote no dev_r2 line in metrics\.jsonl/);
  ok(r.state.nodes.T!.status !== "verified");
});

Deno.test("claim() accepts a long node's score its own trajectory backs, and refuses one beyond it", () => {
  const backed = run([{ step: 1, value: 0.5 }, { step: 2, value: 0.8 }], 0.8);
  equal(backed.inc.length, 0, JSON.stringify(backed.inc));
  equal(backed.r.state.nodes.T!.status, "verified");
  const beyond = run([{ step: 1, value: 0.5 }, { step: 2, value: 0.8 }], 0.9);
  equal(beyond.inc[0]?.type, "FALSE_COMPLETION");
  equal((beyond.inc[0]!.evidence as { observed_best?: number }).observed_best, 0.8);
});

Deno.test("claim() names the malformed metrics lines beside the observed best when it refuses a claim", () => {
  const r0 = loadPlan(PLAN, "c.yaml");
  if (!r0.plan) throw new Error(r0.errors.map((e) => e.message).join("; "));
  let s = tick(prepare(r0.plan, [], "unit", "real")).state;
  s = tick(s, { metrics: [{ step: 1, value: 0.5 }] }).state;
  const done = exit(0.9).done!;
  const r = tick(s, { done: { ...done, malformedLines: 4 } });
  const inc = r.events.flatMap((e) => e.e === "incident" ? [e.incident] : []);
  equal(inc[0]?.type, "FALSE_COMPLETION");
  const ev = inc[0]!.evidence as { observed_best?: number; malformed_metrics_lines?: number };
  equal(ev.observed_best, 0.5);
  equal(ev.malformed_metrics_lines, 4);
});
