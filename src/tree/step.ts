/**
 * The tree loop as a step function: `step(state, event) → (state', incidents)`, pure and deterministic (no
 * clock, no unseeded randomness), with what the shell must do next held in `state.pending`. One cycle:
 *
 * 1. **observe** — the shell performs `pending` and turns what it saw into one event;
 * 2. **ideate** — `proposed`: the ideator's hypotheses become child nodes, their artifacts copied from the
 *    parent's with one step (or one model setting) added;
 * 3. **select** — which node the next cycle expands (select.ts), chosen when a cycle ends;
 * 4. **dispatch** — `pending = execute`: the new nodes go to executors;
 * 5. **backpropagate** — `executed`: the overwatch judges each executor (overwatch.ts); evaluated nodes get
 *    their insight against their parent, and visits, dev gains and outcome tallies move up the tree;
 * 6. **decide** — the best new node goes to the merge gate (`gated`) when it beats the incumbent on the same
 *    dev folds beyond noise (by ACCEPT_EPS and one standard error of the paired fold deltas — a screen,
 *    so a query is not spent on fold noise); the gate admits it when its held-out score beats the
 *    incumbent's by ACCEPT_EPS **and** its per-row continuous loss (row_loss.ts) beats the incumbent's on
 *    the same rows by a paired z of at least `gateZ(budget − 1)` — the Bonferroni bar that holds the
 *    chance of admitting any no-effect candidate in the whole run to GATE_ALPHA (a state recorded before
 *    the loss existed is judged by Z_GATE bootstrap standard errors, as it was); then the next cycle, or
 *    the final test once the cycles are spent (`verdict`).
 *
 * @module
 */
import type { Incident, LaneRefusal } from "../model/state.ts";
import { subSeed } from "../tabular/prng.ts";
import { ACCEPT_EPS, improves } from "../thresholds.ts";
import { addToTally, failedInsight, insightOf, meanStd, summarizeTally } from "./ideate/insight.ts";
import {
  beyondNoise,
  finalCandidate,
  flagsOf,
  plannedComparisons,
  significant,
  Z_GATE,
} from "./gate/gate_rule.ts";
import { judge, scopeViolation, stoppedChild } from "./overwatch.ts";

export { flagsOf, plannedComparisons, significant, Z_GATE };
import { mark, newNode } from "./grow.ts";
import { chooseParent, devGain, signOf } from "./ideate/select.ts";
import type { Escape, Hypothesis, StepOutput, TreeEvent, TreeNode, TreeNodeId, TreeState } from "./types.ts";
import type { LossGain } from "./gate/row_loss.ts";

function backpropagate(s: TreeState, n: TreeNode, gain: number): void {
  for (let at: TreeNode | undefined = n; at; at = at.parent ? s.nodes[at.parent] : undefined) {
    at.visits += 1;
    at.value += gain;
  }
}

function learn(s: TreeState, n: TreeNode): void {
  const parent = n.parent ? s.nodes[n.parent] : undefined;
  if (!parent || !n.insight) return;
  parent.tally = addToTally(parent.tally, n.insight.family, n.insight.outcome);
  parent.summary = summarizeTally(parent.tally);
}

function fail(s: TreeState, n: TreeNode, lesson: string): void {
  mark(n, "failed-informative");
  n.lesson = lesson;
  if (n.hypothesis) n.insight = failedInsight(n.hypothesis, lesson);
  const parent = n.parent ? s.nodes[n.parent] : undefined;
  backpropagate(s, n, parent ? devGain(s, parent) : 0);
  learn(s, n);
}

function evaluate(s: TreeState, n: TreeNode, folds: number[], claimed: number, rows?: LossGain): void {
  n.dev = { ...meanStd(folds), folds };
  n.claimed = claimed;
  const parent = n.parent ? s.nodes[n.parent] : undefined;
  if (parent?.dev && n.hypothesis) {
    n.insight = insightOf(n.hypothesis, n.dev, parent.dev, signOf(s), s.config.metric, rows);
  }
  mark(n, n.insight?.outcome === "hurt" ? "pruned" : "evaluated");
  backpropagate(s, n, devGain(s, n));
  learn(s, n);
}

function point(s: TreeState): void {
  const root = s.nodes[s.order[0]!]!;
  const inc = s.nodes[s.incumbent ?? root.id]!;
  const measured = s.order.map((id) => s.nodes[id]!).filter((n) => n.dev);
  s.history.push({
    cycle: s.cycle,
    nodes: s.order.length,
    best_dev_gain: Math.max(0, ...measured.map((n) => devGain(s, n))),
    incumbent: inc.id,
    incumbent_dev_gain: devGain(s, inc),
    incumbent_heldout_gain: inc.heldout !== null && root.heldout !== null
      ? signOf(s) * (inc.heldout - root.heldout)
      : 0,
  });
}

/** With the gate at the end: the next candidate goes to the gate (gate_rule.ts); true when one did. */
function finalGate(s: TreeState): boolean {
  const node = finalCandidate(s);
  if (node) s.pending = { a: "gate", node };
  return node !== null;
}

function finish(s: TreeState): void {
  const root = s.order[0]!;
  const nodes = s.incumbent && s.incumbent !== root ? [root, s.incumbent] : [root];
  s.pending = { a: "final", nodes };
}

/** Picks the next node to expand and asks for ideas, or moves on to the final test. */
function next(s: TreeState): void {
  if (s.cycle > s.config.cycles) return finalGate(s) ? undefined : finish(s);
  const parent = chooseParent(s);
  if (parent === null) return finish(s);
  s.pending = {
    a: "ideate",
    parent,
    n: s.config.executors,
    seed: subSeed(s.config.seed, `ideate:${s.cycle}:${parent}`),
  };
}

function endCycle(s: TreeState): void {
  point(s);
  s.cycle += 1;
  next(s);
}

/** The starting artifact could not be measured: nothing to compare with, so the run ends without a verdict
 * (still through a final step, so followers of the log see the end). */
function stop(s: TreeState, problem: string): void {
  s.final = { start: null, best: null, problem };
  s.pending = { a: "final", nodes: [] };
}

function onProposed(s: TreeState, ev: Extract<TreeEvent, { e: "proposed" }>): void {
  const parent = s.nodes[ev.parent];
  if (!parent || s.pending?.a !== "ideate") return;
  const seen = new Set(parent.children.map((c) => s.nodes[c]!.hypothesis?.key));
  const fresh = ev.hypotheses.filter((h) => !seen.has(h.key) && (seen.add(h.key), true));
  if (!fresh.length && !ev.problems.length) {
    parent.exhausted = true;
    return next(s);
  }
  // What was screened stays on the parent: not proposed there again, and evidence for the insights.
  if (ev.screened?.length) parent.screened = [...(parent.screened ?? []), ...ev.screened];
  const made: TreeNode[] = [];
  for (const h of fresh) {
    const n = newNode(`n${s.order.length}`, parent, s.cycle, h);
    s.nodes[n.id] = n;
    s.order.push(n.id);
    parent.children.push(n.id);
    made.push(n);
  }
  ev.problems.forEach((p, i) => {
    const h: Hypothesis = {
      key: `llm:unusable:${s.cycle}:${i}`,
      family: "llm",
      columns: [],
      params: {},
      text: "(the model's reply held no usable hypothesis)",
      step: null,
      model: {},
      source: "llm",
      tokens: i === 0 ? ev.tokens : 0,
    };
    const n = newNode(`n${s.order.length}`, parent, s.cycle, h);
    s.nodes[n.id] = n;
    s.order.push(n.id);
    parent.children.push(n.id);
    fail(s, n, p);
  });
  if (!made.length) return endCycle(s);
  for (const n of made) {
    mark(n, "running");
    n.attempt = 1;
  }
  s.running = made.map((n) => n.id);
  s.pending = { a: "execute", nodes: s.running };
}

function onExecuted(s: TreeState, ev: Extract<TreeEvent, { e: "executed" }>, incidents: Incident[]): void {
  if (s.pending?.a !== "execute") return;
  const retry: TreeNodeId[] = [];
  const ctx = { tick: s.tick, observeMs: s.config.observeMs, metric: s.config.metric, sign: signOf(s) };
  for (const r of ev.results) {
    const n = s.nodes[r.node];
    if (!n || !s.running.includes(n.id)) continue;
    // The lanes its sandboxes left read-only are on its record (those of its latest attempt).
    if (r.refused?.length) n.refused = r.refused;
    else delete n.refused;
    const { j, incidents: found } = judge(ctx, n, r);
    incidents.push(...found);
    if (j.kind === "retry") {
      n.attempt += 1;
      retry.push(n.id);
    } else if (j.kind === "failed") fail(s, n, j.lesson);
    else {
      const rec = r.recomputed && "folds" in r.recomputed ? r.recomputed : null;
      evaluate(s, n, j.folds, j.claimed, rec?.vs_parent);
      if (rec?.vs_start) n.oof = rec.vs_start;
      if (rec?.importance) n.importance = rec.importance;
    }
  }
  s.running = s.running.filter((id) => retry.includes(id) || !ev.results.some((r) => r.node === id));
  if (s.running.length) {
    s.pending = { a: "execute", nodes: [...s.running] };
    return;
  }
  const root = s.nodes[s.order[0]!]!;
  if (s.cycle === 0) {
    if (!root.dev) {
      return stop(s, `the starting artifact could not be evaluated: ${root.lesson ?? "unknown"}`);
    }
    s.pending = { a: "gate", node: root.id };
    return;
  }
  // With the gate at the end, a cycle only grows the tree on dev.
  if (s.config.gateAt === "end") return endCycle(s);
  const inc = s.nodes[s.incumbent!]!;
  const dir = s.config.direction;
  const fresh = s.order.map((id) => s.nodes[id]!).filter((n) =>
    n.cycle === s.cycle && n.status === "evaluated"
  );
  const best = fresh.reduce<TreeNode | null>((b, n) => (!b || devGain(s, n) > devGain(s, b) ? n : b), null);
  if (
    best && inc.dev && improves(inc.dev.mean, best.dev!.mean, ACCEPT_EPS, dir) && beyondNoise(s, best, inc)
  ) {
    if (s.heldout.used < s.heldout.budget) {
      s.pending = { a: "gate", node: best.id };
      return;
    }
    best.gate = "skipped: budget";
  }
  endCycle(s);
}

const gateContext = (s: TreeState) => ({
  tick: s.tick,
  observeMs: s.config.observeMs,
  metric: s.config.metric,
  sign: signOf(s),
});

/** After a gate query: the next cycle, or — when the gate runs at the end — the next query or the final. */
function afterGate(s: TreeState): void {
  if (s.cycle > s.config.cycles) return next(s);
  endCycle(s);
}

/** Adds the lanes a later child of the node's artifact left read-only (gate, final test, refit) to its record,
 * beside its executor's. */
function noteRefused(n: TreeNode, refused: readonly LaneRefusal[] | undefined): void {
  if (!refused?.length) return;
  const kept = n.refused ?? [];
  for (const r of refused) {
    if (!kept.some((k) => k.attempt === r.attempt && k.by === r.by && k.path === r.path)) kept.push(r);
  }
  n.refused = kept;
}

function onGated(s: TreeState, ev: Extract<TreeEvent, { e: "gated" }>, incidents: Incident[]): void {
  if (s.pending?.a !== "gate" || s.pending.node !== ev.node) return;
  const n = s.nodes[ev.node]!;
  noteRefused(n, ev.refused);
  if (ev.escapes.length) {
    const ctx = gateContext(s);
    const blank = { node: n.id, attempt: n.attempt, exit: null, signal: null, stderr_tail: [], hung: null };
    const found = judge(ctx, n, {
      ...blank,
      over_budget: null,
      escapes: ev.escapes,
      lesson: null,
      claim: null,
      observed_best: null,
      artifact_changed: false,
      recomputed: null,
    });
    incidents.push(...found.incidents);
    n.gate = "failed";
    mark(n, "failed-informative");
    n.lesson = found.j.kind === "failed" ? `at the merge gate, ${found.j.lesson}` : ev.problem;
    if (s.cycle === 0) return stop(s, `the starting artifact failed at the merge gate: ${n.lesson ?? ""}`);
    return afterGate(s);
  }
  const stopped = stoppedChild(gateContext(s), n, "the merge gate", ev);
  if (stopped) {
    incidents.push(...stopped.incidents);
    n.gate = "failed";
    mark(n, "failed-informative");
    n.lesson = stopped.lesson;
    if (s.cycle === 0) return stop(s, `the starting artifact failed at the merge gate: ${n.lesson}`);
    return afterGate(s);
  }
  if (ev.score === null) {
    n.gate = "failed";
    n.lesson = ev.problem;
    if (s.cycle === 0) return stop(s, `the starting artifact failed on held-out rows: ${ev.problem ?? ""}`);
    return afterGate(s);
  }
  s.heldout.used += 1;
  n.heldout = ev.score;
  if (s.cycle === 0) {
    n.gate = "baseline";
    mark(n, "admitted");
    s.incumbent = n.id;
    s.admitted.push(n.id);
    return afterGate(s);
  }
  const inc = s.nodes[s.incumbent!]!;
  if (ev.paired !== undefined) n.paired = ev.paired;
  if (
    inc.heldout !== null && improves(inc.heldout, ev.score, ACCEPT_EPS, s.config.direction) &&
    (ev.paired === undefined || significant(ev.paired, plannedComparisons(s)))
  ) {
    n.gate = "admitted";
    mark(n, "admitted");
    s.incumbent = n.id;
    s.admitted.push(n.id);
  } else n.gate = "rejected";
  afterGate(s);
}

function onVerdict(s: TreeState, ev: Extract<TreeEvent, { e: "verdict" }>, incidents: Incident[]): void {
  if (s.pending?.a !== "final") return;
  // What the final test's and the refit's children saw: the artifact's code is blamed as at the gate (its
  // score is already null: the child's prediction was not used).
  const escapes = new Map<TreeNodeId, Escape[]>();
  for (const seen of ev.seen ?? []) {
    const n = s.nodes[seen.node];
    if (!n) continue;
    noteRefused(n, seen.refused);
    if (seen.escapes.length) escapes.set(n.id, [...escapes.get(n.id) ?? [], ...seen.escapes]);
  }
  for (const [id, e] of escapes) incidents.push(scopeViolation(gateContext(s), s.nodes[id]!, e));
  for (const { node, score } of ev.scores) {
    const n = s.nodes[node];
    if (n) n.test = score;
  }
  const root = s.nodes[s.order[0]!]!;
  const best = s.nodes[s.incumbent ?? root.id]!;
  s.pending = null;
  if (s.incumbent === null) {
    s.verdict = "NO VERDICT";
    return;
  }
  s.final = { start: root.test, best: best.test, problem: ev.problem };
  if (ev.references) {
    s.final.references = ev.references;
    s.final.flags = flagsOf(s, best.test, ev.references);
  }
  s.verdict = best.id !== root.id ? "RESEARCH ANSWERED" : "NEGATIVE RESULT";
}

/** One step: folds `event` into a copy of `state`; the input is never changed. */
export function step(state: TreeState, event: TreeEvent): StepOutput {
  if (event.e === "init") return { state: event.state, incidents: [] };
  const s = structuredClone(state);
  s.tick += 1;
  const incidents: Incident[] = [];
  switch (event.e) {
    case "proposed":
      onProposed(s, event);
      break;
    case "executed":
      onExecuted(s, event, incidents);
      break;
    case "gated":
      onGated(s, event, incidents);
      break;
    case "verdict":
      onVerdict(s, event, incidents);
      break;
  }
  s.incidents += incidents.length;
  return { state: s, incidents };
}

/** Folds a whole event log (the first event is `init`); returns the last state and every incident. */
export function foldEvents(events: readonly TreeEvent[]): StepOutput {
  let state: TreeState | null = null;
  const incidents: Incident[] = [];
  for (const ev of events) {
    if (ev.e === "init") state = ev.state;
    else {
      if (!state) throw new TypeError("Cannot fold the tree's events: the first one is not init");
      const out = step(state, ev);
      state = out.state;
      incidents.push(...out.incidents);
    }
  }
  if (!state) throw new TypeError("Cannot fold the tree's events: there are none");
  return { state, incidents };
}
