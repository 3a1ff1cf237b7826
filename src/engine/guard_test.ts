import { deepEqual, equal, ok } from "node:assert/strict";
import { loadPlan } from "../graph/load.ts";
import type { ScopeEvidence } from "../model/evidence.ts";
import type { Incident, RunState } from "../model/state.ts";
import type { Observations } from "../model/observe.ts";
import { ACCEPT_MAX_LAPS } from "../thresholds.ts";
import { prepare } from "./prepare.ts";
import { step, type StepResult } from "./step.ts";
import { finishing } from "./test_obs.ts";

/** A (the victim), U and V (unconfined programs that keep running), no edges. */
const PLAN = `
question: q
protocol: { version: p1, metric: m, direction: maximize }
nodes:
  - { id: A, kind: fast, role: other }
  - { id: U, kind: fast, role: other }
  - { id: V, kind: fast, role: other }
edges: []
`;

function tick(
  s: RunState,
  finish: string[],
  guard: Observations["guard"] = [],
  unconfined = ["U", "V"],
): StepResult {
  return step(s, { ...finishing(s, finish), guard, unconfined });
}

/** The one SCOPE_VIOLATION of `r`, checked to be on `victim` and to blame no one: why no one. */
function unnamedOn(r: StepResult, victim: string): string | undefined {
  const found = incidents(r).filter((i) => i.type === "SCOPE_VIOLATION");
  deepEqual(found.map((i) => i.node), [victim]);
  const ev = found[0]!.evidence as ScopeEvidence;
  equal(ev.writer, "unattributed");
  return ev.unattributed;
}

function verifiedA(): RunState {
  const r0 = loadPlan(PLAN, "g.yaml");
  if (!r0.plan) throw new Error(r0.errors.map((e) => e.message).join("; "));
  const s = tick(tick(prepare(r0.plan, [], "unit", "real"), []).state, ["A"]).state;
  equal(s.nodes.A!.status, "verified");
  return s;
}

const incidents = (r: StepResult): Incident[] =>
  r.events.flatMap((e) => e.e === "incident" ? [e.incident] : []);

Deno.test("scopeChecks() blocks a victim overwritten beyond repair ACCEPT_MAX_LAPS times instead of re-running it", () => {
  // Two unconfined programs run: either could have written, so no one is named and the victim pays.
  let s = verifiedA();
  const seen: Incident[] = [];
  for (let time = 1; time <= ACCEPT_MAX_LAPS; time++) {
    const r = tick(s, [], [{ owner: "A", fp: `x${time}`, changed: ["nodes/A/big.bin"], restorable: [] }]);
    const [v] = incidents(r).filter((i) => i.type === "SCOPE_VIOLATION");
    ok(v, `time ${time}: a SCOPE_VIOLATION`);
    seen.push(v);
    equal((v.evidence as { times?: number }).times, time);
    equal(r.state.nodes.A!.tampered, time);
    s = r.state;
    if (time < ACCEPT_MAX_LAPS) {
      equal(s.nodes.A!.status, "running", `time ${time}: the victim re-runs`);
      s = tick(s, ["A"]).state;
      equal(s.nodes.A!.status, "verified");
    }
  }
  deepEqual(seen.map((i) => i.ladder), [...Array(ACCEPT_MAX_LAPS - 1).fill("blame_routing"), "fuse"]);
  equal(s.nodes.A!.status, "blocked", "the last time it is blocked, so the run can end");
  deepEqual((seen.at(-1)!.evidence as { blocked: string[] }).blocked, ["A"]);
  equal(s.nodes.U!.status, "running", "no one else is blamed");
  equal(s.nodes.V!.status, "running");
});

Deno.test("scopeChecks() blames a change to another node's scope on the one unconfined program running, saying why", () => {
  const s = verifiedA();
  const change = { owner: "A", fp: "x1", changed: ["nodes/A/out.txt", "nodes/A/big.bin"] };
  const r = tick(s, [], [{ ...change, restorable: ["nodes/A/out.txt"] }], ["U"]);
  deepEqual(r.actions.filter((a) => a.a === "revert"), [{
    a: "revert",
    node: "A",
    paths: ["nodes/A/out.txt"],
  }]);
  const [v, ...rest] = incidents(r).filter((i) => i.type === "SCOPE_VIOLATION");
  equal(rest.length, 0);
  equal(v?.node, "U");
  const ev = v!.evidence as ScopeEvidence;
  equal(ev.writer, "U");
  equal(ev.scope, "nodes/U");
  equal(
    ev.basis,
    "U was the only program running without a sandbox layer (--unsandboxed) when nodes/A changed; " +
      "no layer saw the write itself",
  );
  equal(ev.unattributed, undefined);
  deepEqual(ev.attempts, [
    { path: "nodes/A/out.txt", op: "write", stopped_by: null, reverted: true },
    { path: "nodes/A/big.bin", op: "write", stopped_by: null, reverted: false },
  ]);
  deepEqual(ev.irreparable, ["nodes/A/big.bin"]);
  equal(r.state.nodes.U!.status, "blocked", "the writer is blocked");
  equal(r.state.nodes.V!.status, "running");
  // The victim re-runs for what could not be put back, and is not counted as overwritten by no one.
  equal(r.state.nodes.A!.tampered, 0);
  ok(incidents(r).some((i) => i.type === "STALE_CASCADE" && i.node === "A"), "the victim re-runs");
  // With both running, either could have written: named, none blamed.
  const both = tick(s, [], [{ ...change, restorable: ["nodes/A/out.txt"] }]);
  equal(
    unnamedOn(both, "A"),
    "U, V ran without a sandbox layer (--unsandboxed); any of them could have written nodes/A, and no layer saw which",
  );
  equal(both.state.nodes.U!.status, "running");
  equal(both.state.nodes.V!.status, "running");
  // The first look after a resume: the change may have been made while no arrow watched, so U is not blamed.
  const resumed = step(s, {
    ...finishing(s, []),
    guard: [{ ...change, restorable: ["nodes/A/out.txt"] }],
    unconfined: ["U"],
    unwatched: true,
  });
  equal(
    unnamedOn(resumed, "A"),
    "nodes/A changed while no arrow watched (found on a resume), so no program can be named; " +
      "U ran without a sandbox layer (--unsandboxed) since",
  );
  equal(resumed.state.nodes.U!.status, "running");
});

Deno.test("scopeChecks() blames a plan-directory change on the one unconfined program running, saying why; several are named, none blamed", () => {
  const r0 = loadPlan(PLAN, "g.yaml");
  if (!r0.plan) throw new Error(r0.errors.map((e) => e.message).join("; "));
  const s = tick(prepare(r0.plan, [], "unit", "real"), []).state;
  const change = { path: "/plan/sitecustomize.py", op: "write" as const, restored: false };
  const one = step(s, { ...finishing(s, []), unconfined: ["U"], planFiles: [{ ...change, during: ["U"] }] });
  const [v] = incidents(one).filter((i) => i.type === "SCOPE_VIOLATION");
  equal(v?.node, "U");
  const ev = v!.evidence as { writer: string; basis?: string; attempts: unknown[] };
  equal(ev.writer, "U");
  ok(ev.basis?.startsWith("U was the only program running without a sandbox layer"), ev.basis);
  deepEqual(ev.attempts, [{ path: change.path, op: "write", stopped_by: null, reverted: false }]);
  const two = step(s, {
    ...finishing(s, []),
    unconfined: ["A", "U"],
    planFiles: [{ ...change, during: ["A", "U"] }],
  });
  const [w] = incidents(two).filter((i) => i.type === "SCOPE_VIOLATION");
  const ew = w!.evidence as { writer: string; unattributed?: string };
  equal(ew.writer, "unattributed");
  ok(ew.unattributed?.startsWith("A, U ran without a sandbox layer"), ew.unattributed);
  equal(two.state.nodes.U!.status, "running", "no one is blamed on a guess");
});

Deno.test("scopeChecks() blames the one unconfined program for the scope it reads, though the victim's re-run demotes it", () => {
  // U reads A and overwrites it beyond repair: A re-runs with its closure (U among it), and U is blamed all
  // the same — blocked, not re-run.
  const r0 = loadPlan(
    PLAN.replace("edges: []", "edges: [{ from: A, to: U, kind: artifact }]"),
    "g.yaml",
  );
  if (!r0.plan) throw new Error(r0.errors.map((e) => e.message).join("; "));
  let s = tick(prepare(r0.plan, [], "unit", "real"), [], [], []).state;
  s = tick(s, ["A"], [], []).state;
  equal(s.nodes.A!.status, "verified");
  equal(s.nodes.U!.status, "running");
  const r = tick(s, [], [{ owner: "A", fp: "x1", changed: ["nodes/A/big.bin"], restorable: [] }], ["U"]);
  const found = incidents(r).map((i) => `${i.type} ${i.node}`);
  deepEqual(found, ["STALE_CASCADE A", "SCOPE_VIOLATION U"]);
  const ev = incidents(r)[1]!.evidence as ScopeEvidence;
  equal(ev.writer, "U");
  deepEqual(ev.irreparable, ["nodes/A/big.bin"]);
  ok(ev.basis?.includes("when nodes/A changed"), ev.basis);
  equal(r.state.nodes.U!.status, "blocked");
  ok(["stale", "running"].includes(r.state.nodes.A!.status), r.state.nodes.A!.status);
});
