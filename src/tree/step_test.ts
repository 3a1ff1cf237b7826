import { deepEqual, equal, ok as truthy } from "node:assert/strict";
import { canonical } from "../model/json.ts";
import { ACCEPT_EPS } from "../thresholds.ts";
import { fakeStart, folds, ok, opening, run } from "../../tests/tree_fake.ts";
import { gateZ } from "./gate/row_loss.ts";
import { plannedComparisons, significant, step, Z_GATE } from "./step.ts";
import { renderTreeReport } from "./report.ts";
import type { TreeEvent, TreeState } from "./types.ts";

Deno.test("step() is pure: the same events give the same bytes, and no input is changed", () => {
  const start = fakeStart();
  const before = canonical(start);
  const events: TreeEvent[] = [
    ...opening(),
    { e: "executed", results: [ok("n1", folds(0.8, 0.02)), ok("n2", folds(0.8, -0.02))] },
  ];
  const frozen = canonical(events);
  const a = run(start, events), b = run(start, events);
  equal(canonical(a.state), canonical(b.state));
  equal(canonical(start), before);
  equal(canonical(events), frozen);
});

Deno.test("step() measures the root, sends it to the gate as the baseline, then asks for ideas", () => {
  const s0 = fakeStart();
  deepEqual(s0.pending, { a: "execute", nodes: ["n0"] });
  const s1 = step(s0, { e: "executed", results: [ok("n0", folds(0.8))] }).state;
  deepEqual(s1.pending, { a: "gate", node: "n0" });
  const s2 = step(s1, { e: "gated", node: "n0", score: 0.81, problem: null, escapes: [] }).state;
  equal(s2.nodes.n0!.status, "admitted");
  equal(s2.nodes.n0!.gate, "baseline");
  equal(s2.incumbent, "n0");
  equal(s2.heldout.used, 1);
  equal(s2.cycle, 1);
  equal(s2.pending?.a, "ideate");
});

Deno.test("step() backpropagates: insights against the parent, pruning what hurt, visits up the tree", () => {
  const { state } = run(fakeStart(), [
    ...opening(),
    { e: "executed", results: [ok("n1", folds(0.8, 0.02)), ok("n2", folds(0.8, -0.02))] },
  ]);
  equal(state.nodes.n1!.insight?.outcome, "helped");
  equal(state.nodes.n1!.status, "evaluated");
  equal(state.nodes.n2!.insight?.outcome, "hurt");
  equal(state.nodes.n2!.status, "pruned");
  equal(state.nodes.n0!.visits, 3);
  equal(state.nodes.n0!.tally.ratio?.helped, 1);
  equal(state.nodes.n0!.tally.log?.hurt, 1);
  truthy(state.nodes.n0!.summary?.includes("log hurt 1"));
  deepEqual(state.pending, { a: "gate", node: "n1" });
});

function toGate(score: number): TreeState {
  return run(fakeStart(), [
    ...opening(),
    { e: "executed", results: [ok("n1", folds(0.8, 0.02)), ok("n2", folds(0.8, -0.02))] },
    { e: "gated", node: "n1", score, problem: null, escapes: [] },
  ]).state;
}

Deno.test("step() admits a candidate whose held-out gain is exactly ACCEPT_EPS, not one a hair below", () => {
  const yes = toGate(0.8 + ACCEPT_EPS);
  equal(yes.nodes.n1!.gate, "admitted");
  equal(yes.incumbent, "n1");
  deepEqual(yes.admitted, ["n0", "n1"]);
  const no = toGate(0.8 + ACCEPT_EPS - 1e-6);
  equal(no.nodes.n1!.gate, "rejected");
  equal(no.incumbent, "n0");
  equal(no.heldout.used, 2);
});

Deno.test("step() never queries held-out past the budget: the candidate is marked skipped", () => {
  const { state } = run(fakeStart({ heldoutBudget: 1 }), [
    ...opening(),
    { e: "executed", results: [ok("n1", folds(0.8, 0.02)), ok("n2", folds(0.8, -0.02))] },
  ]);
  equal(state.heldout.used, 1);
  equal(state.nodes.n1!.gate, "skipped: budget");
  equal(state.pending?.a, "ideate");
});

Deno.test("step() restarts a hung executor once, then fuses it into a failed-informative node", () => {
  const hung = {
    ...ok("n1", folds(0.8)),
    exit: null,
    signal: "SIGTERM",
    hung: { step: 1, silent_ms: 3000, silent_from_start: false },
  };
  const first = run(fakeStart(), [...opening(), { e: "executed", results: [hung, ok("n2", folds(0.8))] }]);
  equal(first.incidents.length, 1);
  equal(first.incidents[0]!.type, "HUNG_RESTART");
  equal(first.incidents[0]!.ladder, "bounce");
  deepEqual(first.state.pending, { a: "execute", nodes: ["n1"] });
  equal(first.state.nodes.n1!.attempt, 2);
  const second = step(first.state, { e: "executed", results: [{ ...hung, attempt: 2 }] });
  equal(second.incidents[0]!.ladder, "fuse");
  equal(second.state.nodes.n1!.status, "failed-informative");
  truthy(second.state.nodes.n1!.lesson?.includes("silent"));
  equal(second.state.nodes.n1!.insight?.outcome, "failed");
});

Deno.test("step() refuses a claim that Arrow's recomputation does not reproduce (FALSE_COMPLETION)", () => {
  const liar = { ...ok("n1", folds(0.8)), claim: { score: 0.95, problem: null }, observed_best: 0.99 };
  const { state, incidents } = run(fakeStart(), [...opening(), {
    e: "executed",
    results: [liar, ok("n2", folds(0.8))],
  }]);
  equal(state.nodes.n1!.status, "failed-informative");
  equal(incidents[0]!.type, "FALSE_COMPLETION");
  equal(incidents[0]!.ladder, "fuse");
  truthy((incidents[0]!.evidence as { problem?: string }).problem?.includes("recomputed"));
  equal(state.nodes.n1!.dev, null);
});

Deno.test("step() blames an executor that reached outside its lane, whatever else it did", () => {
  const escaped = {
    ...ok("n1", folds(0.9)),
    escapes: [{ path: "/data/small.csv", op: "read" as const, stopped_by: "deno" }],
  };
  const { state, incidents } = run(fakeStart(), [...opening(), {
    e: "executed",
    results: [escaped, ok("n2", folds(0.8))],
  }]);
  equal(incidents[0]!.type, "SCOPE_VIOLATION");
  deepEqual((incidents[0]!.evidence as { paths: string[] }).paths, ["/data/small.csv"]);
  equal(state.nodes.n1!.status, "failed-informative");
  equal(state.nodes.n1!.dev, null);
});

Deno.test("step() treats the code's own failure as a lesson without an incident", () => {
  const failing = {
    ...ok("n1", folds(0.8)),
    exit: 3,
    claim: null,
    lesson: "Cannot run the feature transform's fit: boom",
  };
  const { state, incidents } = run(fakeStart(), [...opening(), {
    e: "executed",
    results: [failing, ok("n2", folds(0.8))],
  }]);
  equal(incidents.length, 0);
  equal(state.nodes.n1!.status, "failed-informative");
  equal(state.nodes.n1!.lesson, "Cannot run the feature transform's fit: boom");
});

Deno.test("step() marks a parent exhausted when the ideator has nothing, and chooses again", () => {
  const { state } = run(fakeStart(), [
    { e: "executed", results: [ok("n0", folds(0.8))] },
    { e: "gated", node: "n0", score: 0.8, problem: null, escapes: [] },
    { e: "proposed", parent: "n0", hypotheses: [], problems: [], tokens: 0 },
  ]);
  equal(state.nodes.n0!.exhausted, true);
  deepEqual(state.pending, { a: "final", nodes: ["n0"] });
});

Deno.test("step() ends with the final test and a verdict once the cycles are spent", () => {
  let s = fakeStart({ cycles: 1 });
  for (
    const ev of [...opening(), {
      e: "executed",
      results: [ok("n1", folds(0.8, 0.02)), ok("n2", folds(0.8))],
    }] as TreeEvent[]
  ) {
    s = step(s, ev).state;
  }
  s = step(s, { e: "gated", node: "n1", score: 0.85, problem: null, escapes: [] }).state;
  deepEqual(s.pending, { a: "final", nodes: ["n0", "n1"] });
  s = step(s, {
    e: "verdict",
    scores: [{ node: "n0", score: 0.7 }, { node: "n1", score: 0.75 }],
    problem: null,
  }).state;
  equal(s.verdict, "RESEARCH ANSWERED");
  deepEqual(s.final, { start: 0.7, best: 0.75, problem: null });
  equal(s.pending, null);
  equal(s.history.length, 2);
});

Deno.test("step() fuses an executor past its wall budget (BUDGET_TRIP), and the narration says so", () => {
  const slow = {
    ...ok("n1", folds(0.8)),
    exit: null,
    signal: "SIGTERM",
    over_budget: { limit_ms: 2000, used_ms: 2100 },
  };
  const { state, incidents } = run(fakeStart(), [...opening(), {
    e: "executed",
    results: [slow, ok("n2", folds(0.8))],
  }]);
  equal(incidents[0]!.type, "BUDGET_TRIP");
  equal(incidents[0]!.ladder, "fuse");
  equal(state.nodes.n1!.status, "failed-informative");
  truthy(state.nodes.n1!.lesson?.includes("wall budget"));
});

Deno.test("step() keeps a dev gain within fold noise away from the merge gate", () => {
  const root = folds(0.8);
  const noisy = root.map((x, i) => x + [0.05, -0.04, 0.05, -0.04, 0][i]!);
  const { state } = run(fakeStart(), [
    ...opening(),
    { e: "executed", results: [ok("n1", noisy), ok("n2", folds(0.8))] },
  ]);
  truthy(state.nodes.n1!.dev!.mean - state.nodes.n0!.dev!.mean >= ACCEPT_EPS);
  equal(state.nodes.n1!.insight?.outcome, "neutral");
  equal(state.pending?.a, "ideate");
  equal(state.heldout.used, 1);
});

Deno.test("step() fuses a node whose recomputation went silent (HUNG_RESTART, no restart), and goes on", () => {
  const silent = {
    ...ok("n1", folds(0.8, 0.02)),
    recomputed: {
      problem: "the recomputation went silent for 3 s after 2 progress line(s)",
      exit: null,
      stderr_tail: [],
      hung: { step: 2, silent_ms: 3000, silent_from_start: false },
    },
  };
  const { state, incidents } = run(fakeStart(), [
    ...opening(),
    { e: "executed", results: [silent, ok("n2", folds(0.8))] },
  ]);
  deepEqual(incidents.map((i) => `${i.type}/${i.ladder}/${i.node}`), ["HUNG_RESTART/fuse/n1"]);
  equal(state.nodes.n1!.status, "failed-informative");
  equal(state.nodes.n1!.dev, null, "an unverified claim is never a measurement");
  truthy(state.nodes.n1!.lesson?.includes("recomputation went silent"), String(state.nodes.n1!.lesson));
  equal(state.pending?.a, "ideate", "the loop goes on with the next cycle");
});

Deno.test("step() blames a candidate whose merge-gate child went silent or ran over, and goes on", () => {
  const base = run(fakeStart(), [
    ...opening(),
    { e: "executed", results: [ok("n1", folds(0.8, 0.02)), ok("n2", folds(0.8, -0.02))] },
  ]).state;
  deepEqual(base.pending, { a: "gate", node: "n1" });
  const hung = step(base, {
    e: "gated",
    node: "n1",
    score: null,
    problem: "it went silent",
    escapes: [],
    hung: { step: 1, silent_ms: 3000, silent_from_start: false },
  });
  deepEqual(hung.incidents.map((i) => `${i.type}/${i.ladder}`), ["HUNG_RESTART/fuse"]);
  equal(hung.state.nodes.n1!.status, "failed-informative");
  equal(hung.state.nodes.n1!.gate, "failed");
  equal(hung.state.incumbent, "n0");
  equal(hung.state.heldout.used, 1, "no held-out label was read");
  equal(hung.state.pending?.a, "ideate");
  const over = step(base, {
    e: "gated",
    node: "n1",
    score: null,
    problem: "it ran past its wall budget",
    escapes: [],
    over_budget: { limit_ms: 60_000, used_ms: 60_100 },
  });
  deepEqual(over.incidents.map((i) => i.type), ["BUDGET_TRIP"]);
  equal(over.state.nodes.n1!.status, "failed-informative");
});

Deno.test("step() admits a held-out gain only beyond Z_GATE standard errors of the paired bootstrap", () => {
  const gate = (gain: number, se: number) =>
    step(
      run(fakeStart(), [
        ...opening(),
        { e: "executed", results: [ok("n1", folds(0.8, 0.02)), ok("n2", folds(0.8, -0.02))] },
      ]).state,
      {
        e: "gated",
        node: "n1",
        score: 0.8 + gain,
        problem: null,
        escapes: [],
        paired: { gain, se, n: 100, b: 1000 },
      },
    ).state;
  equal(gate(0.02, 0.02 / Z_GATE).nodes.n1!.gate, "admitted");
  equal(gate(0.02, 0.02 / Z_GATE + 1e-4).nodes.n1!.gate, "rejected", "within the held-out part's noise");
  equal(gate(ACCEPT_EPS / 2, 0).nodes.n1!.gate, "rejected", "ACCEPT_EPS still applies");
  equal(
    step(
      run(fakeStart(), [
        ...opening(),
        { e: "executed", results: [ok("n1", folds(0.8, 0.02)), ok("n2", folds(0.8, -0.02))] },
      ]).state,
      { e: "gated", node: "n1", score: 0.9, problem: null, escapes: [], paired: null },
    ).state.nodes.n1!.gate,
    "rejected",
    "an unmeasured comparison admits nothing",
  );
});

Deno.test("step() admits on the per-row loss only at the Bonferroni bar over the run's planned comparisons", () => {
  const at = (z: number) =>
    step(
      run(fakeStart(), [
        ...opening(),
        { e: "executed", results: [ok("n1", folds(0.8, 0.02)), ok("n2", folds(0.8, -0.02))] },
      ]).state,
      {
        e: "gated",
        node: "n1",
        score: 0.82,
        problem: null,
        escapes: [],
        // The metric's bootstrap alone would admit (gain far beyond Z_GATE); the loss decides.
        paired: {
          gain: 0.02,
          se: 0.001,
          n: 100,
          b: 1000,
          loss: { loss: "logloss", gain: 0.01, se: 0.01 / z, n: 100, z },
        },
      },
    ).state;
  const s = fakeStart();
  equal(plannedComparisons(s), s.heldout.budget - 1);
  const bar = gateZ(plannedComparisons(s));
  truthy(bar > Z_GATE, `the run's bar ${bar} is stricter than one query's ${Z_GATE}`);
  equal(at(bar + 1e-6).nodes.n1!.gate, "admitted");
  equal(at(bar - 1e-3).nodes.n1!.gate, "rejected", "below the run's bar, though beyond one query's");
  // The report's gate table shows the statistic the gate used and the run's bar, not the bootstrap's.
  const row = renderTreeReport(at(bar - 1e-3)).split("\n").find((l) => l.startsWith("| n1 |"));
  truthy(row?.includes(`z ${(bar - 1e-3).toFixed(2)} (≥ ${bar.toFixed(2)}) | rejected`), row);
  truthy(
    significant({ gain: 0.02, se: 0.001, n: 100, b: 1000 }),
    "a state without the loss keeps the old rule",
  );
});

Deno.test("step() keeps the lanes an executor's sandboxes left read-only on its node, and the report shows them", () => {
  const lane = { attempt: 1, by: "worker" as const, path: "/home/u", why: "401 entries, more than 400" };
  const s1 =
    step(fakeStart(), { e: "executed", results: [{ ...ok("n0", folds(0.8)), refused: [lane] }] }).state;
  deepEqual(s1.nodes.n0!.refused, [lane]);
  const report = renderTreeReport(s1);
  truthy(report.includes("## Lanes bound read-only"), report);
  truthy(report.includes("| n0 | 1 | worker | /home/u | 401 entries, more than 400 |"), report);
  // A node whose sandboxes left nothing read-only records nothing: no other run's state changes.
  const none = step(fakeStart(), { e: "executed", results: [ok("n0", folds(0.8))] }).state;
  equal("refused" in none.nodes.n0!, false);
  truthy(!renderTreeReport(none).includes("Lanes bound read-only"));
});
