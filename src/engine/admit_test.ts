import { deepEqual } from "node:assert/strict";
import { loadPlan } from "../graph/load.ts";
import type { RunState } from "../model/state.ts";
import { prepare } from "./prepare.ts";
import { step } from "./step.ts";
import { finishing } from "./test_obs.ts";

/** Two built-in workers (A, C), two user programs (B, D), no edges: all four are ready at once. */
const PLAN = `
question: q
protocol: { version: p1, metric: m, direction: maximize }
nodes:
  - { id: A, kind: fast, role: other, worker: { type: builtin, name: noop } }
  - { id: B, kind: fast, role: other, worker: { type: command, argv: [sh, -c, "true"] } }
  - { id: C, kind: fast, role: other, worker: { type: builtin, name: noop } }
  - { id: D, kind: fast, role: other, worker: { type: command, argv: [sh, -c, "true"] } }
edges: []
`;

function start(unconfined: boolean): RunState {
  const r = loadPlan(PLAN, "u.yaml");
  if (!r.plan) throw new Error(r.errors.map((e) => e.message).join("; "));
  const s = prepare(r.plan, [], "unit", "real");
  return unconfined ? { ...s, unconfined: true } : s;
}

const running = (s: RunState) =>
  Object.keys(s.nodes).filter((id) => s.nodes[id]!.status === "running").sort();

/** One tick in which the named running nodes exit and are accepted. */
function tick(s: RunState, finish: string[] = []): RunState {
  return step(s, finishing(s, finish)).state;
}

Deno.test("admit() starts every ready node at once when programs are confined", () => {
  const s = start(false);
  deepEqual(running(tick(s)), s.plan.order.slice(0, s.slots.cpu.total), "as many as the cpu slots hold");
});

Deno.test("admit() runs an unconfined program alone, and nothing overtakes one that waits", () => {
  let s = tick(start(true));
  deepEqual(running(s), ["A"], "A goes first; B waits for it and holds back C and D behind it");
  s = tick(s, ["A"]);
  deepEqual(running(s), ["B"], "B runs alone");
  s = tick(s);
  deepEqual(running(s), ["B"], "nothing joins it while it runs");
  s = tick(s, ["B"]);
  deepEqual(running(s), ["C"], "C starts; D, unconfined, waits for it");
  s = tick(s, ["C"]);
  deepEqual(running(s), ["D"]);
  s = tick(s, ["D"]);
  deepEqual(running(s), []);
  deepEqual(Object.values(s.nodes).map((n) => n.status), ["verified", "verified", "verified", "verified"]);
});
