import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { loadPlan } from "../graph/load.ts";
import type { DoneObs, NodeObs, Observations } from "../model/observe.ts";
import { emptyNodeObs, emptyObservations } from "../model/observe.ts";
import type { Manifest, RunState } from "../model/state.ts";
import { prepare } from "./prepare.ts";
import { step, type StepResult } from "./step.ts";

const ev = (i: { evidence: unknown }) => i.evidence as Record<string, unknown>;

const PLAN = `
question: does T beat B?
protocol: { version: p1, metric: m, direction: maximize }
nodes:
  - { id: H, kind: fast, role: harness }
  - { id: B, kind: fast, role: baseline }
  - { id: T, kind: fast, role: train, budget: { ticks: 4 } }
  - { id: R, kind: fast, role: report }
edges:
  - { from: H, to: B, kind: artifact }
  - { from: H, to: T, kind: artifact }
  - { from: B, to: R, kind: artifact }
  - { from: T, to: R, kind: artifact }
  - { from: R, to: T, kind: back_edge, laps: 2 }
`;

const TUPLE = { data_hash: "d", split_hash: "s", protocol_version: "p1", seed: 7 };

function start(): RunState {
  const r = loadPlan(PLAN, "t.yaml");
  if (!r.plan) throw new Error(r.errors.map((e) => e.message).join("; "));
  return prepare(r.plan, [], "unit", "mock");
}

function done(node: string, code: number, manifest: Partial<Manifest> | null): DoneObs {
  return {
    exit: 0,
    accept: { argv: ["@claim"], code, stdout: code ? "claim does not reproduce" : "ok", stderr: "" },
    manifest: manifest ? ({ node, ...manifest } as Manifest) : null,
  };
}

/** One tick with observations for the running nodes (defaults: nothing happened, fingerprint unchanged). */
function tick(
  s: RunState,
  nodes: Record<string, Partial<NodeObs>> = {},
  guard: Observations["guard"] = [],
): StepResult {
  const obs: Observations = { ...emptyObservations(s.tick + 1), guard };
  for (const [id, ns] of Object.entries(s.nodes)) {
    if (ns.status === "running") obs.nodes[id] = { ...emptyNodeObs(ns.fp), ...nodes[id] };
  }
  return step(s, obs);
}

function toVerified(): RunState {
  let s = tick(start()).state; // admits H
  s = tick(s, { H: { fp: "h1", done: done("H", 0, TUPLE) } }).state; // H verified, B and T admitted
  equal(s.nodes.T!.status, "running");
  return s;
}

Deno.test("step() refuses observations for the wrong tick", () => {
  const s = start();
  throws(() => step(s, emptyObservations(5)), RangeError);
});

Deno.test("step() admits roots first and freezes the harness tuple on verification", () => {
  const s = toVerified();
  deepEqual(s.frozen, { ...TUPLE, by: "H" });
  deepEqual(s.slots.cpu.held, ["B", "T"]);
});

Deno.test("a retry that does not improve by ACCEPT_EPS is fused before its laps run out", () => {
  let s = toVerified();
  let r = tick(s, { B: { fp: "b1", done: done("B", 1, { ...TUPLE, score: 0.70 }) } });
  equal(r.events.filter((e) => e.e === "incident").length, 1);
  s = tick(r.state).state; // B re-admitted
  r = tick(s, { B: { fp: "b2", done: done("B", 1, { ...TUPLE, score: 0.702 }) } });
  const inc = r.events.find((e) => e.e === "incident");
  ok(inc?.e === "incident");
  equal(inc.incident.ladder, "fuse");
  equal(ev(inc.incident).lap, 2);
  equal(ev(inc.incident).lap_budget, 3);
  equal(ev(inc.incident).reason, "retry did not improve by ACCEPT_EPS");
  equal(r.state.nodes.B!.status, "killed");
});

Deno.test("a retry that improves by exactly ACCEPT_EPS is bounced again", () => {
  let s = toVerified();
  s = tick(s, { B: { fp: "b1", done: done("B", 1, { ...TUPLE, score: 0.70 }) } }).state;
  s = tick(s).state;
  const r = tick(s, { B: { fp: "b2", done: done("B", 1, { ...TUPLE, score: 0.703 }) } });
  const inc = r.events.find((e) => e.e === "incident");
  ok(inc?.e === "incident");
  equal(inc.incident.ladder, "bounce");
  ok(r.events.some((e) => e.e === "status" && e.node === "B" && e.to === "pending"), "sent back");
  equal(r.state.nodes.B!.status, "running", "and re-admitted in the same tick");
  equal(r.state.nodes.B!.attempt, 3);
  equal(r.state.nodes.B!.lap, 2);
});

Deno.test("the lap budget comes from the back-edge into the node", () => {
  let s = toVerified();
  s = tick(s, { T: { fp: "t1", done: done("T", 1, { ...TUPLE, score: 0.70 }) } }).state;
  s = tick(s).state;
  const r = tick(s, { T: { fp: "t2", done: done("T", 1, { ...TUPLE, score: 0.75 }) } });
  const inc = r.events.find((e) => e.e === "incident");
  ok(inc?.e === "incident");
  equal(ev(inc.incident).lap_budget, 2);
  equal(ev(inc.incident).via, "R→T");
  equal(ev(inc.incident).reason, "lap budget exhausted");
});

Deno.test("a manifest that deviates from the frozen tuple is blocked and blamed", () => {
  const s = toVerified();
  const r = tick(s, {
    B: { fp: "b1", done: done("B", 0, { ...TUPLE, score: 0.6 }) },
    T: { fp: "t1", done: done("T", 0, { ...TUPLE, seed: 8, score: 0.9 }) },
  });
  equal(r.state.nodes.B!.status, "verified");
  equal(r.state.nodes.T!.status, "blocked");
  equal(r.state.nodes.R!.status, "blocked");
  const inc = r.events.find((e) => e.e === "incident");
  ok(
    inc?.e === "incident" && inc.incident.type === "COMPARABILITY_BLOCK" &&
      ev(inc.incident).field === "seed",
  );
  equal(r.state.verdict, "RESULT WITHHELD");
});

Deno.test("a hard tick budget fuses the node with BUDGET_TRIP", () => {
  let s = toVerified();
  let r: StepResult | undefined;
  for (let i = 1; i <= 6 && s.nodes.T!.status === "running"; i++) {
    r = tick(s, { T: { fp: `t${i}`, tokens: 0 } });
    s = r.state;
  }
  equal(s.nodes.T!.status, "killed");
  const inc = r!.events.find((e) => e.e === "incident");
  ok(inc?.e === "incident" && inc.incident.type === "BUDGET_TRIP" && inc.incident.ladder === "fuse");
  deepEqual(inc.incident.evidence, { budget: "ticks", limit: 4, used: 5 });
});

/** One tick with a guard observation and the given unconfined running nodes. */
function guarded(
  s: RunState,
  changed: string[],
  restorable: string[],
  unconfined: string[] = [],
): StepResult {
  const obs: Observations = { ...emptyObservations(s.tick + 1), unconfined };
  for (const [id, ns] of Object.entries(s.nodes)) {
    if (ns.status === "running") obs.nodes[id] = emptyNodeObs(ns.fp);
  }
  const owner = changed[0]!.split("/")[1]!;
  obs.guard = [{ owner, fp: "x", changed, restorable }];
  return step(s, obs);
}

Deno.test("a write into a verified scope while one unconfined node runs is reverted and blamed on it, saying why", () => {
  const s = toVerified();
  const r = guarded(s, ["nodes/H/sneaky.txt"], ["nodes/H/sneaky.txt"], ["T"]);
  deepEqual(r.actions.filter((a) => a.a === "revert"), [{
    a: "revert",
    node: "H",
    paths: ["nodes/H/sneaky.txt"],
  }]);
  const incs = r.events.flatMap((e) => e.e === "incident" ? [e.incident] : []);
  deepEqual(incs.map((i) => `${i.type} ${i.node}`), ["SCOPE_VIOLATION T"]);
  const e = ev(incs[0]!);
  equal(e.writer, "T");
  equal(e.unattributed, undefined);
  equal(
    e.basis,
    "T was the only program running without a sandbox layer (--unsandboxed) when nodes/H changed; " +
      "no layer saw the write itself",
  );
  deepEqual(e.attempts, [{ path: "nodes/H/sneaky.txt", op: "write", stopped_by: null, reverted: true }]);
  equal(e.irreparable, undefined, "everything was put back");
  equal(r.state.nodes.H!.status, "verified", "the victim is not blamed");
  equal(r.state.nodes.T!.status, "blocked", "the writer is");
});

Deno.test("a write into a verified scope while several unconfined nodes run is reverted, naming them all and blaming none", () => {
  const s = toVerified();
  const r = guarded(s, ["nodes/H/sneaky.txt"], ["nodes/H/sneaky.txt"], ["B", "T"]);
  deepEqual(r.actions.filter((a) => a.a === "revert").map((a) => a.node), ["H"]);
  const inc = r.events.find((e) => e.e === "incident");
  ok(inc?.e === "incident" && inc.incident.type === "SCOPE_VIOLATION");
  equal(inc.incident.node, "H");
  equal(ev(inc.incident).writer, "unattributed");
  equal(
    ev(inc.incident).unattributed,
    "B, T ran without a sandbox layer (--unsandboxed); any of them could have written nodes/H, and no layer saw which",
  );
  equal(ev(inc.incident).basis, undefined);
  equal(r.state.nodes.H!.status, "verified", "the victim is not blamed");
  equal(r.state.nodes.B!.status, "running", "nor is anyone on a guess");
  equal(r.state.nodes.T!.status, "running");
});

Deno.test("a verified scope that changes while every runner is confined is stale: the world changed", () => {
  let s = toVerified();
  s = tick(s, { B: { fp: "b1", done: done("B", 0, { ...TUPLE, score: 0.6 }) } }).state;
  const r = guarded(s, ["nodes/B/model.json"], []);
  const inc = r.events.find((e) => e.e === "incident");
  ok(inc?.e === "incident" && inc.incident.type === "STALE_CASCADE");
  equal(ev(inc.incident).reason, "scope changed");
  deepEqual(ev(inc.incident).changed, ["nodes/B/model.json"]);
  deepEqual(ev(inc.incident).demoted, ["B"]);
  equal(r.actions.some((a) => a.a === "revert"), false, "the new content is the world now");
  equal(r.state.nodes.B!.status, "running", "it re-runs at once");
});

Deno.test("a change to the harness that froze the tuple taints, sparing training", () => {
  const s = toVerified();
  const r = guarded(s, ["nodes/H/harness.json"], []);
  const inc = r.events.find((e) => e.e === "incident");
  ok(inc?.e === "incident" && inc.incident.type === "TAINT_INVALIDATION");
  equal(ev(inc.incident).reason, "scope changed");
});

Deno.test("a write into an idle scope that cannot be put back is reported with reverted: false", () => {
  const s = toVerified();
  for (const unconfined of [["T"], ["B", "T"]]) {
    const r = guarded(s, ["nodes/H/sneaky.txt"], [], unconfined);
    const inc = r.events.find((e) => e.e === "incident" && e.incident.type === "SCOPE_VIOLATION");
    ok(inc?.e === "incident" && inc.incident.type === "SCOPE_VIOLATION");
    equal(ev(inc.incident).writer, unconfined.length === 1 ? "T" : "unattributed");
    deepEqual(ev(inc.incident).irreparable, ["nodes/H/sneaky.txt"]);
    equal((ev(inc.incident).attempts as { reverted: boolean }[])[0]!.reverted, false);
    ok(
      r.events.some((e) => e.e === "incident" && e.incident.type === "TAINT_INVALIDATION"),
      "the victim re-runs",
    );
  }
});

Deno.test("an out-of-scope write seen by the sandbox blames the writer and blocks its closure", () => {
  const s = toVerified();
  const r = tick(s, {
    T: { fp: "t1", escapes: [{ path: "nodes/B/x", op: "write", via: "deno-audit", stopped: true }] },
  });
  equal(r.state.nodes.T!.status, "blocked");
  equal(r.state.nodes.R!.status, "blocked");
  ok(r.actions.some((a) => a.a === "stop" && a.node === "T"));
});

Deno.test("the run concludes with a verdict once nothing can run", () => {
  let s = toVerified();
  s = tick(s, {
    B: { fp: "b1", done: done("B", 0, { ...TUPLE, score: 0.6 }) },
    T: { fp: "t1", done: done("T", 0, { ...TUPLE, score: 0.7 }) },
  }).state;
  equal(s.nodes.R!.status, "running");
  const r = tick(s, { R: { fp: "r1", done: done("R", 0, {}) } });
  equal(r.state.verdict, "RESEARCH ANSWERED");
  ok(r.events.some((e) => e.e === "verdict"));
  ok(r.events.some((e) => e.e === "report"));
});
