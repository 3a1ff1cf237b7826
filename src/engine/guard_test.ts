import { deepEqual, equal, ok } from "node:assert/strict";
import { loadPlan } from "../graph/load.ts";
import type { Incident, RunState } from "../model/state.ts";
import type { Observations } from "../model/observe.ts";
import { ACCEPT_MAX_LAPS } from "../thresholds.ts";
import { prepare } from "./prepare.ts";
import { step, type StepResult } from "./step.ts";
import { finishing } from "./test_obs.ts";

/** A (the victim) and U (an unconfined program that keeps running), no edges. */
const PLAN = `
question: q
protocol: { version: p1, metric: m, direction: maximize }
nodes:
  - { id: A, kind: fast, role: other }
  - { id: U, kind: fast, role: other }
edges: []
`;

function tick(s: RunState, finish: string[], guard: Observations["guard"] = []): StepResult {
  return step(s, { ...finishing(s, finish), guard, unconfined: ["U"] });
}

const incidents = (r: StepResult): Incident[] =>
  r.events.flatMap((e) => e.e === "incident" ? [e.incident] : []);

Deno.test("scopeChecks() blocks a victim overwritten beyond repair ACCEPT_MAX_LAPS times instead of re-running it", () => {
  const r0 = loadPlan(PLAN, "g.yaml");
  if (!r0.plan) throw new Error(r0.errors.map((e) => e.message).join("; "));
  let s = tick(prepare(r0.plan, [], "unit", "real"), []).state;
  s = tick(s, ["A"]).state;
  equal(s.nodes.A!.status, "verified");
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
