import { deepEqual, equal, ok as truthy } from "node:assert/strict";
import { fakeStart, folds, ok, opening } from "../../tests/tree_fake.ts";
import type { LossGain } from "./gate/row_loss.ts";
import { step } from "./step.ts";
import type { ExecResult, TreeEvent } from "./types.ts";

// The gate at the end, and the per-row comparisons that choose its candidate and label insights.

Deno.test("step() with the gate at the end: cycles grow on dev, then the best node on dev is gated once", () => {
  let s = fakeStart({ cycles: 1, gateAt: "end", heldoutBudget: 2 });
  for (
    const ev of [...opening(), {
      e: "executed",
      results: [ok("n1", folds(0.8, 0.02)), ok("n2", folds(0.8, 0.04))],
    }] as TreeEvent[]
  ) {
    s = step(s, ev).state;
  }
  // The cycle ended without a query; the spent cycles send the best on dev (n2) to the gate, alone.
  deepEqual(s.pending, { a: "gate", node: "n2" });
  equal(s.history.length, 2);
  s = step(s, { e: "gated", node: "n2", score: 0.79, problem: null, escapes: [] }).state;
  equal(s.nodes.n2!.gate, "rejected");
  // The budget is spent: no second query, the final test, and no extra history point.
  deepEqual(s.pending, { a: "final", nodes: ["n0"] });
  equal(s.history.length, 2);
});

Deno.test("step() with the gate at the end, without per-row comparisons, sends the surest dev gain, not the largest mean", () => {
  let s = fakeStart({ cycles: 1, gateAt: "end", heldoutBudget: 2 });
  // n1: +0.05 on average but from two lucky folds; n2: +0.02 on every fold.
  const lucky = [0.79, 0.95, 0.79, 0.95, 0.77].map((x, i) => x + (i % 2 ? 0.01 : -0.01));
  for (
    const ev of [...opening(), {
      e: "executed",
      results: [ok("n1", lucky), ok("n2", folds(0.8, 0.02))],
    }] as TreeEvent[]
  ) {
    s = step(s, ev).state;
  }
  truthy(s.nodes.n1!.dev!.mean > s.nodes.n2!.dev!.mean, "n1 has the larger mean");
  deepEqual(s.pending, { a: "gate", node: "n2" });
});

Deno.test("step() with the gate at the end sends the node its dev rows say the held-out rows can confirm", () => {
  let s = fakeStart({ cycles: 1, gateAt: "end", heldoutBudget: 2 });
  // n1 gains more on dev folds, but on a few rows (per-row z 1.1); n2 gains less, on most rows (z 3.4).
  const rows = (gain: number, z: number) => ({ loss: "logloss" as const, gain, se: gain / z, n: 200, z });
  const withOof = (r: ExecResult, oof: LossGain): ExecResult => ({
    ...r,
    recomputed: { folds: (r.recomputed as { folds: number[] }).folds, vs_start: oof },
  });
  for (
    const ev of [...opening(), {
      e: "executed",
      results: [
        withOof(ok("n1", folds(0.8, 0.04)), rows(0.05, 1.1)),
        withOof(ok("n2", folds(0.8, 0.02)), rows(0.02, 3.4)),
      ],
    }] as TreeEvent[]
  ) {
    s = step(s, ev).state;
  }
  deepEqual(s.nodes.n2!.oof, rows(0.02, 3.4), "the comparison is kept on the node");
  truthy(s.nodes.n1!.dev!.mean > s.nodes.n2!.dev!.mean, "n1 has the larger mean");
  deepEqual(s.pending, { a: "gate", node: "n2" });
});

Deno.test("step() labels a node by its rows against its parent's when both were kept, else by its folds", () => {
  const rows = (z: number) => ({ loss: "logloss" as const, gain: 0.01 * z, se: 0.01, n: 300, z });
  const withRows = (r: ExecResult, vs: LossGain): ExecResult => ({
    ...r,
    recomputed: { folds: (r.recomputed as { folds: number[] }).folds, vs_parent: vs },
  });
  // n1's fold deltas (+0.004 ± 0.001) are beyond a fold t-test; its rows (z 0.8) are not: neutral. n2's
  // folds are noisy (t-test: neutral), its rows steady (z 3.1): helped.
  const noisy = [0.79, 0.83, 0.79, 0.83, 0.79].map((x) => x + 0.004);
  const steady = folds(0.8).map((x, i) => x + [0.004, 0.005, 0.003, 0.004, 0.004][i]!);
  let s = fakeStart({ cycles: 1 });
  for (const ev of opening()) s = step(s, ev).state;
  s = step(s, {
    e: "executed",
    results: [
      withRows(ok("n1", steady), rows(0.8)),
      withRows(ok("n2", noisy), rows(3.1)),
    ],
  }).state;
  equal(s.nodes.n1!.insight!.outcome, "neutral");
  deepEqual(s.nodes.n1!.insight!.rows, rows(0.8));
  equal(s.nodes.n2!.insight!.outcome, "helped");
  truthy(
    s.nodes.n2!.insight!.sentence.includes("per-row logloss z 3.10 over 300 rows"),
    s.nodes.n2!.insight!.sentence,
  );
  // Without rows, the fold rule: the same n1 folds are helped.
  let t = fakeStart({ cycles: 1 });
  for (const ev of opening()) t = step(t, ev).state;
  t = step(t, {
    e: "executed",
    results: [ok("n1", steady), ok("n2", noisy)],
  }).state;
  equal(t.nodes.n1!.insight!.outcome, "helped");
  equal(t.nodes.n2!.insight!.outcome, "neutral");
});

Deno.test("step() notes the lanes the gate's, final test's and refit's children left read-only, and blames their escapes", () => {
  let s = fakeStart({ cycles: 1, gateAt: "end", heldoutBudget: 2 });
  const lane = (by: "gate" | "test" | "refit") => ({ attempt: 1, by, path: "/home/u", why: "401 entries" });
  for (
    const ev of [...opening(), {
      e: "executed",
      results: [ok("n1", folds(0.8, 0.02)), ok("n2", folds(0.8, 0.04))],
    }] as TreeEvent[]
  ) {
    s = step(s, ev).state;
  }
  deepEqual(s.pending, { a: "gate", node: "n2" });
  s = step(s, { e: "gated", node: "n2", score: 0.79, problem: null, escapes: [], refused: [lane("gate")] })
    .state;
  deepEqual(s.nodes.n2!.refused, [lane("gate")]);
  deepEqual(s.pending, { a: "final", nodes: ["n0"] });
  const escape = { path: "/tmp/leak.csv", op: "write" as const, stopped_by: "shadow" };
  const out = step(s, {
    e: "verdict",
    scores: [{ node: "n0", score: null }],
    problem: "n0: its code reached outside its lane while the gate ran it",
    seen: [
      { node: "n0", by: "test", escapes: [escape], refused: [lane("test")] },
      { node: "n0", by: "refit", escapes: [], refused: [lane("refit"), lane("refit")] },
    ],
  });
  // The start's record keeps its executor's lane (opening()'s has none) and each later child's, once.
  deepEqual(out.state.nodes.n0!.refused, [lane("test"), lane("refit")]);
  equal(out.incidents.length, 1, JSON.stringify(out.incidents));
  const inc = out.incidents[0]!;
  equal(inc.type, "SCOPE_VIOLATION");
  equal(inc.node, "n0");
  deepEqual((inc.evidence as { paths: string[] }).paths, ["/tmp/leak.csv"]);
  // Without anything seen, the verdict changes nothing on the record.
  const clean = step(s, { e: "verdict", scores: [{ node: "n0", score: 0.8 }], problem: null });
  equal(clean.incidents.length, 0);
  equal("refused" in clean.state.nodes.n0!, false);
});

Deno.test("step() with the gate at the end sends a gain its folds' spread hides when its rows promise it", () => {
  let s = fakeStart({ cycles: 1, gateAt: "end", heldoutBudget: 2 });
  // n1's fold deltas swing (one fold's confident mistake fixed, the rest a little worse): not beyond the
  // folds' noise, yet its rows beat the start's with z 2.6.
  const swing = [0.8, 0.95, 0.79, 0.79, 0.79];
  const withOof = (r: ExecResult, oof: LossGain): ExecResult => ({
    ...r,
    recomputed: { folds: (r.recomputed as { folds: number[] }).folds, vs_start: oof },
  });
  for (
    const ev of [...opening(), {
      e: "executed",
      results: [
        withOof(ok("n1", swing), { loss: "logloss", gain: 0.03, se: 0.03 / 2.6, n: 200, z: 2.6 }),
        withOof(ok("n2", folds(0.8, -0.01)), { loss: "logloss", gain: -0.01, se: 0.01, n: 200, z: -1 }),
      ],
    }] as TreeEvent[]
  ) {
    s = step(s, ev).state;
  }
  deepEqual(s.pending, { a: "gate", node: "n1" });
});
