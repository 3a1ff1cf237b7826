/**
 * A sweep through the pure step function: a halving kill at a checkpoint boundary with its evidence and the
 * freed gpu taken by a queued configuration in the same tick; crashes and hangs inside a sweep; the winner's
 * gate (a best configuration whose claim fails is not the answer); siblings never supersede each other, an
 * answer from outside the sweep does.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { prepare } from "../src/engine/prepare.ts";
import { step, type StepResult } from "../src/engine/step.ts";
import { formatDiagnostic, loadPlan } from "../src/graph/load.ts";
import type { DoneObs, NodeObs, Observations } from "../src/model/observe.ts";
import { emptyNodeObs, emptyObservations } from "../src/model/observe.ts";
import type { Incident, RunState } from "../src/model/state.ts";
import { judge } from "../src/overwatch/verdict.ts";

const TUPLE = { data_hash: "d", split_hash: "s", protocol_version: "p1", seed: 7 };

function start(opts: { rungs?: string; other?: boolean } = {}): RunState {
  const text = `question: q
protocol: { version: p1, metric: m, direction: maximize }
resources: { slots: { gpu: 2, cpu: 3 } }
nodes:
  - { id: H, kind: fast, role: harness }
  - { id: B, kind: fast, role: baseline }
  - id: T
    kind: long
    role: train
    sweep:
      space: { x: { values: [1, 2, 3] } }
      grid: true
      halving: { eta: 3, rungs: ${opts.rungs ?? "[6]"} }
  - { id: R, kind: reactive, role: eval }
${opts.other ? "  - { id: S, kind: long, role: train }" : ""}
edges:
  - { from: H, to: B, kind: artifact }
  - { from: H, to: T, kind: artifact }
  - { from: H, to: R, kind: artifact }
  - { from: T, to: R, kind: stream }
${opts.other ? "  - { from: H, to: S, kind: artifact }" : ""}
`;
  const r = loadPlan(text, "s.yaml");
  if (!r.plan) throw new Error(r.errors.map(formatDiagnostic).join("\n"));
  return prepare(r.plan, [], "sweep-step", "mock");
}

function tick(s: RunState, nodes: Record<string, Partial<NodeObs>> = {}): StepResult {
  const obs: Observations = emptyObservations(s.tick + 1);
  for (const [id, ns] of Object.entries(s.nodes)) {
    if (ns.status === "running") obs.nodes[id] = { ...emptyNodeObs(ns.fp), ...nodes[id] };
  }
  return step(s, obs);
}

function claim(node: string, score: number, code = 0): DoneObs {
  return {
    exit: 0,
    accept: { argv: ["@claim"], code, stdout: code ? "does not reproduce" : "ok", stderr: "" },
    manifest: { node, ...TUPLE, score },
  };
}

const CRASH: DoneObs = {
  exit: 1,
  crash: { exit_code: 1, signal: null, stderr_tail: ["boom"] },
  accept: null,
  manifest: null,
};

/** Stages `from`+1 … `to` at a constant dev value, and a checkpoint at `to`. */
function train(from: number, to: number, value: number): Partial<NodeObs> {
  const metrics = Array.from({ length: to - from }, (_, k) => ({ step: from + k + 1, value }));
  return { metrics, ckpts: [{ step: to, file: `ckpt/step_${to}.json` }], fp: `f${to}` };
}

const incidents = (r: StepResult) =>
  r.events.flatMap((e) => (e.e === "incident" ? [e.incident] : [])) as Incident[];
const ev = (i: Incident) => i.evidence as unknown as Record<string, unknown>;

/** H and B verified (baseline 0.6), T_c01 and T_c02 training on the two gpus, T_c03 queued. */
function ready(opts: { rungs?: string; other?: boolean } = {}): RunState {
  let s = tick(start(opts)).state;
  s = tick(s, { H: { fp: "h", done: claim("H", 0) } }).state;
  s = tick(s, { B: { fp: "b", done: claim("B", 0.6) } }).state;
  deepEqual(s.slots.gpu.held, ["T_c01", "T_c02"]);
  equal(s.nodes.T_c03!.status, "pending");
  return s;
}

Deno.test("a loser is killed at its rung checkpoint and a queued configuration takes its gpu in the same tick", () => {
  const r = tick(ready(), { T_c01: train(0, 6, 0.7), T_c02: train(0, 6, 0.5) });
  const [kill] = incidents(r);
  equal(kill?.type, "SUPERSEDED_KILL");
  equal(kill?.node, "T_c02");
  const e = ev(kill!);
  deepEqual([e.sweep, e.rung, e.rank, e.keep, e.reached, e.eta], ["T", 6, 2, 1, 2, 3]);
  deepEqual([e.ckpt, e.step, e.freed, e.started, e.answered_by], ["ckpt/step_6.json", 6, "gpu", true, null]);
  deepEqual(e.scores, [{ node: "T_c01", score: 0.7, step: 6 }, { node: "T_c02", score: 0.5, step: 6 }]);
  const slots = r.events.filter((x) => x.e === "slot").map((x) => x.e === "slot" && `${x.op} ${x.node}`);
  deepEqual(slots, ["free T_c02", "hold T_c03"], "freed and refilled within one tick");
  equal(r.state.nodes.T_c02!.status, "superseded");
  equal(r.state.nodes.T_c03!.status, "running");
  ok(r.actions.some((a) => a.a === "stop" && a.node === "T_c02"));
  ok(
    r.events.some((x) => x.e === "stream" && x.from === "T_c02" && x.to === "R"),
    "its checkpoint still reached R",
  );
});

Deno.test("a crash inside a sweep is a false completion as usual; fused, the configuration leaves the ranking", () => {
  let s = ready();
  let r = tick(s, { T_c01: { ...train(0, 6, 0.9), done: CRASH }, T_c02: train(0, 4, 0.5) });
  deepEqual(incidents(r).map((i) => [i.type, i.node, i.ladder]), [["FALSE_COMPLETION", "T_c01", "bounce"]]);
  equal(ev(incidents(r)[0]!).problem, "the worker crashed (exit 1) without a claim");
  s = r.state;
  equal(s.nodes.T_c01!.status, "running", "retried at once, from its last checkpoint");
  equal(s.nodes.T_c01!.from, "ckpt/step_6.json");
  // It still holds its place at rung 6 while it retries: T_c02 arrives below it and is cut.
  r = tick(s, { T_c02: train(4, 6, 0.5) });
  deepEqual(incidents(r).map((i) => [i.type, i.node]), [["SUPERSEDED_KILL", "T_c02"]]);
  s = r.state;
  // Two more crashes fuse it (lap budget 3): out by its own failure, it no longer ranks, and T_c03 is alone.
  for (const lap of [2, 3]) {
    r = tick(s, { T_c01: { done: CRASH } });
    equal(incidents(r)[0]?.ladder, lap === 3 ? "fuse" : "bounce");
    s = r.state;
  }
  equal(s.nodes.T_c01!.status, "killed");
  // T_c03 ranks below the superseded T_c02, but nothing above it can answer any more: it is not cut.
  r = tick(s, { T_c03: train(0, 6, 0.4) });
  deepEqual(incidents(r), []);
  equal(r.state.nodes.T_c03!.status, "running");
});

Deno.test("a hung configuration is restarted, then fused, and no longer holds a place", () => {
  let s = ready();
  s = tick(s, { T_c01: train(0, 6, 0.9), T_c02: train(0, 3, 0.5) }).state;
  const seen: string[] = [];
  for (let k = 0; k < 8 && s.nodes.T_c01!.status !== "killed"; k++) {
    const r = tick(s, { T_c02: k === 0 ? train(3, 5, 0.5) : {} });
    for (const i of incidents(r)) seen.push(`${i.type} ${i.node} ${i.ladder}`);
    s = r.state;
  }
  deepEqual(seen.filter((x) => x.includes("T_c01")), [
    "HUNG_RESTART T_c01 bounce",
    "HUNG_RESTART T_c01 fuse",
  ]);
  // T_c02 hung meanwhile too (it stopped at step 5); what matters: T_c01 is out and ranks nowhere.
  equal(s.nodes.T_c01!.status, "killed");
  ok(s.nodes.T_c03!.status === "running", "the fused configuration's gpu went to the queued one");
});

Deno.test("a best configuration whose claim fails is not the answer; a sibling's answer supersedes nothing", () => {
  let s = ready({ rungs: "[60]" });
  s = tick(s, { T_c01: train(0, 6, 0.9), T_c02: train(0, 6, 0.8) }).state;
  // T_c02 finishes first and answers; T_c01 keeps training (siblings are decided by halving only).
  let r = tick(s, { T_c02: { done: claim("T_c02", 0.8) }, T_c01: train(6, 9, 0.9) });
  s = r.state;
  equal(s.nodes.T_c02!.status, "verified");
  equal(s.nodes.T_c01!.status, "running");
  equal(s.nodes.T_c01!.killAtCkpt, null, "no supersede mark on a sibling");
  equal(s.nodes.T_c03!.status, "running", "the queued sibling still starts");
  // The best configuration claims a score its acceptance does not reproduce, twice without improving: fused.
  r = tick(s, { T_c01: { done: claim("T_c01", 0.9, 1) } });
  equal(incidents(r)[0]?.type, "FALSE_COMPLETION");
  s = r.state;
  r = tick(s, { T_c01: { done: claim("T_c01", 0.9, 1) } });
  equal(ev(incidents(r)[0]!).reason, "retry did not improve by ACCEPT_EPS");
  s = r.state;
  equal(s.nodes.T_c01!.status, "killed");
  const j = judge(s);
  equal(j.verdict, "RESEARCH ANSWERED");
  equal(j.detail.method, "T_c02");
  equal(j.detail.score, 0.8);
});

Deno.test("the verdict rests on the best verified configuration, not the first", () => {
  let s = ready({ rungs: "[60]" });
  s = tick(s, { T_c01: train(0, 6, 0.7), T_c02: train(0, 6, 0.8) }).state;
  s = tick(s, { T_c01: { done: claim("T_c01", 0.7) }, T_c02: { done: claim("T_c02", 0.8) } }).state;
  equal(s.nodes.T_c01!.status, "verified");
  equal(s.nodes.T_c02!.status, "verified");
  equal(judge(s).detail.method, "T_c02");
});

Deno.test("an answer from outside the sweep supersedes its configurations like any branch", () => {
  let s = tick(start({ other: true })).state;
  s = tick(s, { H: { fp: "h", done: claim("H", 0) } }).state;
  s = tick(s, { B: { fp: "b", done: claim("B", 0.6) }, S: { fp: "s0" } }).state;
  // S (no sweep) took a gpu with T_c01; T_c02 and T_c03 wait.
  deepEqual(s.slots.gpu.held, ["S", "T_c01"]);
  s = tick(s, { S: train(0, 6, 0.9), T_c01: train(0, 3, 0.5) }).state;
  const r = tick(s, { S: { done: claim("S", 0.9) }, T_c01: train(3, 4, 0.5) });
  equal(r.state.nodes.T_c01!.killAtCkpt, "SUPERSEDED_KILL");
  deepEqual(
    incidents(r).map((i) => [i.type, i.node, ev(i).started]),
    [["SUPERSEDED_KILL", "T_c02", false], ["SUPERSEDED_KILL", "T_c03", false]],
  );
});
