import { deepEqual, equal, ok } from "node:assert/strict";
import { loadPlan } from "../graph/load.ts";
import type { AgentStepObs, NodeObs, Observations } from "../model/observe.ts";
import { emptyNodeObs, emptyObservations } from "../model/observe.ts";
import type { Incident, RunState } from "../model/state.ts";
import { EMPTY_FP } from "../model/state.ts";
import { K_FREEZE } from "../thresholds.ts";
import { prepare } from "./prepare.ts";
import { step, type StepResult } from "./step.ts";

const PLAN = `
question: does T beat B?
protocol: { version: p1, metric: m, direction: maximize }
nodes:
  - { id: T, kind: fast, role: train, acceptance: ["@manifest"], worker: { type: agent, prompt: "train", max_steps: 12 } }
  - { id: C, kind: fast, role: train, acceptance: ["@manifest"] }
edges: []
`;

function start(): RunState {
  const r = loadPlan(PLAN, "t.yaml");
  if (!r.plan) throw new Error(r.errors.map((e) => e.message).join("; "));
  return step(prepare(r.plan, [], "unit", "live"), emptyObservations(1)).state;
}

function tick(s: RunState, nodes: Record<string, Partial<NodeObs>> = {}): StepResult {
  const obs: Observations = emptyObservations(s.tick + 1);
  for (const [id, ns] of Object.entries(s.nodes)) {
    if (ns.status === "running") obs.nodes[id] = { ...emptyNodeObs(ns.fp), ...nodes[id] };
  }
  return step(s, obs);
}

const spin = (n: number, from = 1): AgentStepObs[] =>
  Array.from({ length: n }, (_, i) => ({ step: from + i, tokens: 1230, cost: 0.002, fp: EMPTY_FP }));
const crashed = {
  exit: 1,
  crash: { exit_code: 1, signal: null, stderr_tail: ["step limit 12"] },
  accept: null,
  manifest: null,
};
const ev = (i: Incident | undefined) => (i?.evidence ?? {}) as unknown as Record<string, unknown>;
const incidents = (r: StepResult): Incident[] =>
  r.events.flatMap((e) => (e.e === "incident" ? [e.incident] : []));

Deno.test("an agent that spins through its whole step limit inside one tick is a BUDGET_TRIP, not a crash", () => {
  const s = start();
  equal(s.nodes.T!.status, "running");
  const r = tick(s, {
    T: { tokens: 12 * 1230, steps: spin(12), stepEnd: { end: "max_steps", steps: 12 }, done: crashed },
  });
  const [trip, ...rest] = incidents(r).filter((i) => i.node === "T");
  deepEqual(rest, []);
  equal(trip?.type, "BUDGET_TRIP");
  equal(trip?.ladder, "bounce");
  const e = ev(trip);
  equal(e.frozen_steps, K_FREEZE);
  deepEqual(e.steps, { from: 1, to: K_FREEZE });
  equal(e.tokens_burned, K_FREEZE * 1230);
  equal(e.steps_taken, 12);
  equal(e.tokens_total, 12 * 1230);
  ok(!r.events.some((x) => x.e === "incident" && x.incident.type === "FALSE_COMPLETION"));
});

Deno.test("an agent out of steps before K_FREEZE with its scope frozen is spinning; one that changed it crashed", () => {
  const r = tick(start(), {
    T: { tokens: 2460, steps: spin(2), stepEnd: { end: "max_steps", steps: 2 }, done: crashed },
  });
  const [trip] = incidents(r);
  equal(trip?.type, "BUDGET_TRIP");
  equal(ev(trip).stopped_by, "step limit");
  const moving: AgentStepObs[] = [{ step: 1, tokens: 10, cost: null, fp: "a" }, {
    step: 2,
    tokens: 10,
    cost: null,
    fp: "b",
  }];
  const r2 = tick(start(), {
    T: { tokens: 20, steps: moving, stepEnd: { end: "max_steps", steps: 2 }, done: crashed },
  });
  equal(incidents(r2)[0]?.type, "FALSE_COMPLETION");
});

Deno.test("agent steps across ticks count once each; ticks without steps count nothing for an agent", () => {
  let s = start();
  for (let t = 0; t < 5; t++) s = tick(s, { T: { tokens: 0, burned: 500 } }).state; // frozen ticks, no step
  equal(s.nodes.T!.status, "running", "ticks are not an agent's observations");
  s = tick(s, { T: { tokens: 1230, steps: spin(2) } }).state;
  s = tick(s, { T: { steps: spin(2) } }).state; // the same steps again (a replay): not counted twice
  equal(s.nodes.T!.frozen, 2);
  const r = tick(s, { T: { tokens: 1230, steps: spin(1, 3) } });
  equal(incidents(r)[0]?.type, "BUDGET_TRIP");
  deepEqual(ev(incidents(r)[0]).steps, { from: 1, to: 3 });
});

Deno.test("an agent flipping its scope A→B→A across steps is an OSCILLATION_TRIP naming the steps", () => {
  const steps: AgentStepObs[] = ["a", "b", "a"].map((fp, i) => ({ step: i + 1, tokens: 10, cost: null, fp }));
  const r = tick(start(), { T: { tokens: 30, steps } });
  const [trip] = incidents(r);
  equal(trip?.type, "OSCILLATION_TRIP");
  deepEqual(ev(trip).agent_steps, [1, 2, 3]);
});

Deno.test("a node that is not an agent is still judged in ticks", () => {
  let s = start();
  let r: StepResult | null = null;
  for (let t = 0; t < K_FREEZE; t++) {
    r = tick(s, { C: { tokens: 5 } });
    s = r.state;
  }
  equal(incidents(r!).find((i) => i.node === "C")?.type, "BUDGET_TRIP");
  ok("frozen_ticks" in ev(incidents(r!)[0]));
});

Deno.test("an agent whose token budget runs out while its scope is frozen is fused as spinning", () => {
  const r = loadPlan(PLAN.replace("max_steps: 12 }", "max_steps: 12 }, budget: { tokens: 2000 }"), "t.yaml");
  if (!r.plan) throw new Error(r.errors.map((e) => e.message).join("; "));
  const s = step(prepare(r.plan, [], "unit", "live"), emptyObservations(1)).state;
  const out = tick(s, { T: { tokens: 2460, steps: spin(2) } });
  const [trip] = incidents(out);
  equal(trip?.type, "BUDGET_TRIP");
  equal(trip?.ladder, "fuse");
  deepEqual(ev(trip).spinning, { frozen_steps: 2, steps: { from: 1, to: 2 }, tokens_burned: 2460 });
});
