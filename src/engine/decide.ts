/**
 * DECIDE: run the detectors and gates over this tick's observations and let the supervisor adjudicate.
 * Nodes are visited in plan order so the incidents of a tick always come out in the same order.
 *
 * @module
 */
import type { PlanNode } from "../graph/types.ts";
import type { NodeObs, Observations } from "../model/observe.ts";
import type { Tx } from "../model/tx.ts";
import { nodeOf } from "../model/topology.ts";
import { DEFAULT_FINISH_TICKS, tickBudget, wallBudget } from "../model/defaults.ts";
import { advance, checkPlateau, trackProgress, trackScope } from "../overwatch/detectors.ts";
import * as sup from "../overwatch/supervisor.ts";
import { answered } from "../overwatch/verdict.ts";
import { spinningAt, stepsObserved, trackAgent } from "./agent_steps.ts";
import { claim } from "./claim.ts";
import { scopeChecks } from "./guard.ts";

export function decide(tx: Tx, obs: Observations): void {
  const { plan } = tx.state;
  // A fault that took effect is recorded first, whatever the overwatch then makes of its effect.
  for (const id of plan.order) {
    for (const index of obs.nodes[id]?.fired ?? []) {
      const f = tx.state.faults[index];
      if (f && !f.fired && f.node === id) tx.emit({ e: "fault", index, kind: f.kind, node: id });
    }
  }
  scopeChecks(tx, obs);
  for (const id of plan.order) {
    const o = obs.nodes[id];
    if (!o || tx.state.nodes[id]!.status !== "running") continue;
    const node = nodeOf(plan, id);
    if (o.tokens) tx.emit({ e: "note", node: id, set: { tokens: tx.state.nodes[id]!.tokens + o.tokens } });
    if (o.delivered) tx.emit({ e: "deliver", node: id, n: o.delivered });
    if (node.kind !== "fast" && o.fp !== tx.state.nodes[id]!.fp) {
      tx.emit({ e: "note", node: id, set: { fp: o.fp } });
    }
    if (node.kind === "long") trackLong(tx, node, o);
    // An agent is observed in its own steps (each one, even many in a tick), before its exit is judged.
    const agent = stepsObserved(node);
    if (agent) trackAgent(tx, node, o);
    if (tx.state.nodes[id]!.status !== "running") continue;
    if (o.done) {
      claim(tx, node, o.done);
      continue;
    }
    if (node.kind === "fast" && o.observed && !agent) trackFast(tx, node, o);
    if (tx.state.nodes[id]!.status === "running") budgets(tx, node, o);
  }
}

function trackLong(tx: Tx, node: PlanNode, o: NodeObs): void {
  const id = node.id;
  const dir = tx.state.plan.protocol.direction;
  const ns = tx.state.nodes[id]!;
  for (const m of o.metrics) tx.emit({ e: "metric", node: id, step: m.step, value: m.value });
  const prog = trackProgress(ns, o.metrics, dir, o.observed);
  let prevBest = ns.ckpts.at(-1)?.best ?? null;
  let flat = ns.flat;
  let plateauAt: { file: string; step: number; prev: number | null } | null = null;
  for (const c of o.ckpts) {
    // best_dev as of this checkpoint's step, not of the whole tick: two checkpoints found in one slow tick
    // must not look flat because they share the tick's best.
    const upTo = o.metrics.filter((m) => m.step <= c.step);
    const here = advance(ns, upTo, dir);
    const dev = upTo.at(-1)?.value ?? ns.value ?? undefined;
    const best = here.best ?? undefined;
    tx.emit({ e: "ckpt", node: id, step: c.step, file: c.file, ...(dev !== undefined ? { dev } : {}), best });
    if (here.best !== null) {
      const p = checkPlateau(prevBest, here.best, flat, target(tx), dir);
      flat = p.flat;
      if (p.plateau && !plateauAt) plateauAt = { file: c.file, step: c.step, prev: prevBest };
      prevBest = here.best;
    }
  }
  tx.emit({
    e: "note",
    node: id,
    set: {
      step: prog.step,
      value: prog.value,
      best: prog.best,
      bestStep: prog.bestStep,
      stalled: prog.stalled,
      seen: prog.seen,
      flat,
    },
  });
  if (o.done) return;
  const boundary = o.ckpts.at(-1);
  if (boundary && ns.killAtCkpt === "SUPERSEDED_KILL") {
    return sup.supersede(tx, id, {
      ckpt: boundary.file,
      step: boundary.step,
      best_dev: prog.best,
      answered_by: answeredBy(tx),
      freed: "gpu",
      started: true,
    });
  }
  if (plateauAt) {
    return sup.plateau(tx, id, {
      ckpt: plateauAt.file,
      step: plateauAt.step,
      previous_ckpt_best: plateauAt.prev,
      target: target(tx),
      flat_ckpts: flat,
    });
  }
  if (prog.hung) sup.hung(tx, id, tx.state.mode === "mock" ? undefined : observePace(node));
}

function observePace(node: PlanNode): string {
  const ms = node.observe_ms ?? 10_000;
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

function trackFast(tx: Tx, node: PlanNode, o: NodeObs): void {
  const ns = tx.state.nodes[node.id]!;
  // Tokens since the last observation: on the real path they arrive every tick, a scope is looked at less.
  const burned = o.burned ?? o.tokens;
  const t = trackScope(ns, o.fp, burned);
  tx.emit({ e: "note", node: node.id, set: { fp: t.fp, trail: t.trail, frozen: t.frozen } });
  const scope = `nodes/${node.scope}`;
  if (t.oscillation) {
    return sup.bounce(tx, node.id, { type: "OSCILLATION_TRIP", evidence: { trail: t.oscillation, scope } });
  }
  if (t.stuck) {
    sup.bounce(tx, node.id, {
      type: "BUDGET_TRIP",
      evidence: {
        frozen_ticks: t.frozen,
        fingerprint: t.fp,
        tokens_burned: burned,
        tokens_total: tx.state.nodes[node.id]!.tokens,
        scope,
      },
    });
  }
}

function budgets(tx: Tx, node: PlanNode, o: NodeObs): void {
  const ns = tx.state.nodes[node.id]!;
  const ticks = tx.tick - ns.started;
  const tb = tickBudget(node, tx.state.mode);
  const wall = wallBudget(node, tx.state.mode);
  if (tb && ticks > tb.limit) {
    sup.overBudget(tx, node.id, { budget: tb.own ? "ticks" : "default ticks", limit: tb.limit, used: ticks });
  } else if (wall !== null && o.elapsedMs !== undefined && o.elapsedMs > wall) {
    sup.overBudget(tx, node.id, { budget: "wall", limit: wall, used: Math.round(o.elapsedMs) });
  } else if (node.budget.tokens !== undefined && ns.tokens > node.budget.tokens) {
    const spinning = spinningAt(tx, node);
    sup.overBudget(tx, node.id, {
      budget: "tokens",
      limit: node.budget.tokens,
      used: ns.tokens,
      ...(spinning ? { spinning } : {}),
    });
  } else if (ns.finishAt !== null && tx.tick - ns.finishAt > DEFAULT_FINISH_TICKS) {
    sup.overBudget(tx, node.id, {
      budget: "default ticks",
      limit: DEFAULT_FINISH_TICKS,
      used: tx.tick - ns.finishAt,
    });
  }
}

/** The score a long node must reach: the verified baseline's, else the protocol's pinned target. */
export function target(tx: Tx): number | null {
  const base = tx.state.plan.nodes.find((n) => n.role === "baseline");
  const ns = base ? tx.state.nodes[base.id] : undefined;
  if (ns?.status === "verified" && typeof ns.manifest?.score === "number") return ns.manifest.score;
  return tx.state.plan.protocol.target ?? null;
}

function answeredBy(tx: Tx): string | null {
  return answered(tx.state);
}
