/**
 * Successive halving decisions as a pure function of the state: who is ranked at a rung, how many stay
 * (exactly at the η boundaries, with min_keep), ties, the direction, configurations out by their own failure,
 * rungs nobody reached, and that a cut waits for the configuration's checkpoint boundary.
 */
import { deepEqual, equal } from "node:assert/strict";
import { cuts, rungs } from "../src/engine/sweep.ts";
import { prepare } from "../src/engine/prepare.ts";
import { formatDiagnostic, loadPlan } from "../src/graph/load.ts";
import type { RunState, Status } from "../src/model/state.ts";

function sweepState(
  n: number,
  opts: { minKeep?: number; direction?: string; rungs?: string } = {},
): RunState {
  const text = `question: q
protocol: { version: p1, metric: m, direction: ${opts.direction ?? "maximize"} }
resources: { slots: { gpu: ${n}, cpu: 2 } }
nodes:
  - { id: H, kind: fast, role: harness }
  - id: T
    kind: long
    role: train
    sweep:
      space: { x: { range: [1, ${n}] } }
      grid: true
      halving: { eta: 3, rungs: ${opts.rungs ?? "[6, 12]"}${
    opts.minKeep ? `, min_keep: ${opts.minKeep}` : ""
  } }
  - { id: R, kind: reactive, role: eval }
edges:
  - { from: H, to: T, kind: artifact }
  - { from: T, to: R, kind: stream }
`;
  const r = loadPlan(text, "h.yaml");
  if (!r.plan) throw new Error(r.errors.map(formatDiagnostic).join("\n"));
  return prepare(r.plan, [], "halving", "mock");
}

const id = (k: number) => `T_c${String(k).padStart(2, "0")}`;

/** Puts configuration `k` at `status` with checkpoints `[step, best]…`. */
function put(s: RunState, k: number, status: Status, ckpts: [number, number | null][]): void {
  const ns = s.nodes[id(k)]!;
  ns.status = status;
  ns.ckpts = ckpts.map(([step, best]) => ({
    step,
    file: `ckpt/step_${step}.json`,
    ...(best === null ? {} : { best }),
  }));
  ns.step = ckpts.at(-1)?.[0] ?? 0;
}

const all = (s: RunState) => new Set(Object.keys(s.nodes));
const cutIds = (s: RunState, at = all(s)) => cuts(s, at).map((c) => c.node);

Deno.test("cuts() keeps ⌊n/η⌋ at exactly the η boundaries: n = 3 keeps 1, n = 5 keeps 1, n = 6 keeps 2", () => {
  for (const [n, kept] of [[3, 1], [5, 1], [6, 2]] as const) {
    const s = sweepState(n);
    for (let k = 1; k <= n; k++) put(s, k, "running", [[6, 0.5 + k / 100]]);
    const best = Array.from({ length: kept }, (_, j) => id(n - j));
    deepEqual(rungs(s, s.plan.sweeps![0]!)[0]!.keep, kept, `n = ${n}`);
    deepEqual(
      cutIds(s).sort(),
      Array.from({ length: n }, (_, j) => id(j + 1)).filter((x) => !best.includes(x)),
      `n = ${n}`,
    );
  }
});

Deno.test("cuts() keeps min_keep when ⌊n/η⌋ is smaller, and keeps a lone arrival", () => {
  const s = sweepState(3, { minKeep: 2 });
  for (let k = 1; k <= 3; k++) put(s, k, "running", [[6, k / 10]]);
  deepEqual(cutIds(s), [id(1)]);
  const lone = sweepState(3);
  put(lone, 2, "running", [[6, 0.1]]);
  deepEqual(cutIds(lone), []);
});

Deno.test("cuts() breaks a tie on the score grid in favour of the earlier configuration", () => {
  const s = sweepState(3);
  put(s, 1, "running", [[6, 0.7]]);
  put(s, 2, "running", [[6, 0.7 + 1e-12]]);
  put(s, 3, "running", [[6, 0.7]]);
  deepEqual(cutIds(s), [id(2), id(3)]);
  const c = cuts(s, all(s))[0]!;
  deepEqual([c.rung, c.rank, c.keep, c.reached, c.eta], [6, 2, 1, 3, 3]);
  deepEqual(c.scores, [{ node: id(1), score: 0.7, step: 6 }, { node: id(2), score: 0.7 + 1e-12, step: 6 }]);
});

Deno.test("cuts() ranks by the protocol's direction", () => {
  const s = sweepState(3, { direction: "minimize" });
  put(s, 1, "running", [[6, 0.3]]);
  put(s, 2, "running", [[6, 0.1]]);
  put(s, 3, "running", [[6, 0.2]]);
  deepEqual(cutIds(s), [id(1), id(3)]);
});

Deno.test("cuts() waits for a configuration's checkpoint boundary before it kills", () => {
  const s = sweepState(3);
  for (let k = 1; k <= 3; k++) put(s, k, "running", [[6, k / 10]]);
  deepEqual(cutIds(s, new Set([id(3), id(2)])), [id(2)], "T_c01 showed no new checkpoint this tick");
});

Deno.test("cuts() drops configurations out by their own failure, but keeps those halving stopped", () => {
  const s = sweepState(6);
  // T_c06 was best at rung 6, then hung twice: it counts as never tried, so n = 5 and one stays.
  put(s, 6, "killed", [[6, 0.9]]);
  put(s, 5, "superseded", [[6, 0.8]]);
  for (let k = 1; k <= 4; k++) put(s, k, "running", [[6, k / 10]]);
  const r = rungs(s, s.plan.sweeps![0]!)[0]!;
  deepEqual(r.ranked.map((e) => e.node), [id(5), id(4), id(3), id(2), id(1)]);
  equal(r.keep, 1);
  // T_c05 holds the one place; T_c04, the best configuration that can still answer, is not cut for it.
  deepEqual(cutIds(s), [id(1), id(2), id(3)]);
  for (const status of ["blocked", "plateaued"] as const) {
    put(s, 5, status, [[6, 0.8]]);
    deepEqual(cutIds(s), [id(1), id(2), id(3)], `${status} leaves the ranking`);
  }
});

Deno.test("cuts() never cuts the best configuration that can still answer in favour of stopped ones", () => {
  const s = sweepState(3);
  put(s, 1, "superseded", [[6, 0.9]]);
  put(s, 2, "running", [[6, 0.5]]);
  put(s, 3, "running", [[6, 0.4]]);
  deepEqual(cutIds(s), [id(3)], "T_c02 stays although it ranks second of three with one place");
  put(s, 2, "verified", [[6, 0.5]]);
  deepEqual(cutIds(s), [id(3)], "a verified configuration above counts as one that answers");
});

Deno.test("cuts() reads a rung at the first checkpoint past it; a checkpoint without a metric ranks last", () => {
  const s = sweepState(3, { rungs: "[5]" });
  put(s, 1, "running", [[4, 0.9], [8, 0.4]]);
  put(s, 2, "running", [[6, null]]);
  put(s, 3, "running", [[6, 0.3]]);
  const r = rungs(s, s.plan.sweeps![0]!)[0]!;
  deepEqual(r.ranked, [
    { node: id(1), score: 0.4, step: 8 },
    { node: id(3), score: 0.3, step: 6 },
    { node: id(2), score: null, step: 6 },
  ]);
});

Deno.test("cuts() names the lowest rung a configuration lost at; a rung nobody reached decides nothing", () => {
  const s = sweepState(3);
  put(s, 1, "running", [[6, 0.1], [12, 0.2]]);
  put(s, 2, "running", [[6, 0.5], [12, 0.9]]);
  put(s, 3, "running", [[6, 0.6]]);
  const c = cuts(s, all(s));
  deepEqual(c.map((x) => [x.node, x.rung]), [[id(1), 6], [id(2), 6]]);
  const quiet = sweepState(3, { rungs: "[6, 40]" });
  for (let k = 1; k <= 3; k++) put(quiet, k, "running", [[6, 0.5]]);
  const table = rungs(quiet, quiet.plan.sweeps![0]!);
  deepEqual(table[1]!.ranked, []);
  deepEqual(cutIds(quiet), [id(2), id(3)], "only rung 6 decided");
});

Deno.test("cuts() lets later arrivals push a survivor out at its next boundary", () => {
  const s = sweepState(6);
  put(s, 1, "running", [[6, 0.5], [12, 0.6]]);
  deepEqual(cutIds(s), [], "alone at both rungs");
  for (let k = 2; k <= 6; k++) put(s, k, "running", [[6, 0.6 + k / 100]]);
  deepEqual(cutIds(s, new Set([id(1)])), [id(1)]);
  const c = cuts(s, new Set([id(1)]))[0]!;
  deepEqual([c.rung, c.rank, c.keep, c.reached], [6, 6, 2, 6]);
});
