/**
 * DECIDE: run the detectors and gates over this tick's observations and let the supervisor adjudicate.
 * Nodes are visited in plan order so the incidents of a tick always come out in the same order.
 *
 * @module
 */
import type { NodeId, PlanNode } from "../graph/types.ts";
import { checkComparability, type Gated, TUPLE_FIELDS, tupleOf } from "../gates/comparability.ts";
import type { Manifest } from "../model/state.ts";
import type { Tx } from "../model/tx.ts";
import { nodeOf } from "../model/topology.ts";
import { checkPlateau, trackProgress, trackScope } from "../overwatch/detectors.ts";
import * as sup from "../overwatch/supervisor.ts";
import type { DoneObs, NodeObs, Observations } from "../model/observe.ts";

const TUPLE_ROLES = new Set(["baseline", "train", "eval", "ablation"]);

/** The manifest as the comparability gate holds it: claim-making roles to all four fields, others to what they carry. */
export function gated(node: PlanNode, m: Manifest): Gated | null {
  if (TUPLE_ROLES.has(node.role)) return { manifest: m, fields: TUPLE_FIELDS };
  const fields = TUPLE_FIELDS.filter((f) => f in m);
  return fields.length ? { manifest: m, fields } : null;
}

export function decide(tx: Tx, obs: Observations): void {
  const { plan } = tx.state;
  scopeChecks(tx, obs);
  for (const id of plan.order) {
    const o = obs.nodes[id];
    if (!o || tx.state.nodes[id]!.status !== "running") continue;
    const node = nodeOf(plan, id);
    if (o.tokens) tx.emit({ e: "note", node: id, set: { tokens: tx.state.nodes[id]!.tokens + o.tokens } });
    if (o.delivered) {
      const ns = tx.state.nodes[id]!;
      tx.emit({
        e: "note",
        node: id,
        set: {
          inbox: ns.inbox.slice(o.delivered),
          delivered: [...ns.delivered, ...ns.inbox.slice(0, o.delivered)],
        },
      });
    }
    if (node.kind !== "fast" && o.fp !== tx.state.nodes[id]!.fp) {
      tx.emit({ e: "note", node: id, set: { fp: o.fp } });
    }
    if (node.kind === "long") trackLong(tx, node, o);
    if (tx.state.nodes[id]!.status !== "running") continue;
    if (o.done) {
      claim(tx, node, o.done);
      continue;
    }
    if (node.kind === "fast") trackFast(tx, node, o);
    if (tx.state.nodes[id]!.status === "running") budgets(tx, node);
  }
}

/** Escapes seen by the sandbox layers and foreign changes seen by the guard, one incident per writer. */
function scopeChecks(tx: Tx, obs: Observations): void {
  const byWriter = new Map<NodeId, sup.Escape[]>();
  const claimed = new Set<string>();
  for (const id of tx.state.plan.order) {
    for (const e of obs.nodes[id]?.escapes ?? []) {
      const list = byWriter.get(id) ?? [];
      list.push({ path: e.path, op: e.op, stopped_by: e.stopped ? e.via : null, reverted: false });
      byWriter.set(id, list);
      claimed.add(e.path);
    }
  }
  for (const g of obs.guard) {
    const loose = g.changed.filter((p) => !claimed.has(p));
    for (const list of byWriter.values()) {
      for (const e of list) if (g.changed.includes(e.path)) e.reverted = true;
    }
    if (g.changed.some((p) => claimed.has(p)) || loose.length) {
      tx.act({ a: "revert", node: g.owner, paths: g.changed });
    }
    if (loose.length) {
      const escapes = loose.map((path) => ({ path, op: "write", stopped_by: null, reverted: true }));
      sup.scopeViolation(tx, null, g.owner, escapes);
    }
  }
  for (const [writer, escapes] of byWriter) {
    if (tx.state.nodes[writer]!.status === "running") sup.scopeViolation(tx, writer, null, escapes);
  }
}

function claim(tx: Tx, node: PlanNode, done: DoneObs): void {
  const c: sup.Claim = {
    argv: done.accept.argv,
    code: done.accept.code,
    stdout: done.accept.stdout,
    stderr: done.accept.stderr,
    workerExit: done.exit,
    manifest: done.manifest,
  };
  if (done.accept.code !== 0) return sup.falseCompletion(tx, node.id, c);
  if (!done.manifest) {
    return sup.falseCompletion(tx, node.id, { ...c, problem: done.manifestError ?? "results.json missing" });
  }
  if (done.manifest.node !== node.id) {
    return sup.falseCompletion(tx, node.id, {
      ...c,
      problem: `results.json names node "${done.manifest.node}", not "${node.id}"`,
    });
  }
  const frozen = tx.state.frozen;
  const held = gated(node, done.manifest);
  if (frozen && held && node.role !== "harness") {
    const dev = checkComparability(frozen, [held]);
    if (dev) return sup.comparabilityBlock(tx, dev, node.id);
  }
  if (node.role === "harness" && !tupleOf(done.manifest)) {
    return sup.falseCompletion(tx, node.id, {
      ...c,
      problem: "harness manifest lacks the comparability tuple",
    });
  }
  sup.verify(tx, node.id, done.manifest);
}

function trackLong(tx: Tx, node: PlanNode, o: NodeObs): void {
  const id = node.id;
  const dir = tx.state.plan.protocol.direction;
  const ns = tx.state.nodes[id]!;
  for (const m of o.metrics) tx.emit({ e: "metric", node: id, step: m.step, value: m.value });
  const prog = trackProgress(ns, o.metrics, dir);
  const ckpts = [...ns.ckpts];
  let flat = ns.flat;
  let plateauAt: { file: string; step: number; prev: number | null } | null = null;
  for (const c of o.ckpts) {
    tx.emit({ e: "ckpt", node: id, step: c.step, file: c.file });
    const dev = devAt(o.metrics, c.step, ns.value);
    const prevBest = ckpts.length ? ckpts.at(-1)!.best ?? null : null;
    // best_dev as of this checkpoint's step, not of the whole tick: two checkpoints found in one slow tick
    // must not look flat because they share the tick's best.
    const bestHere = trackProgress(ns, o.metrics.filter((m) => m.step <= c.step), dir).best;
    ckpts.push({
      step: c.step,
      file: c.file,
      ...(dev !== undefined ? { dev } : {}),
      best: bestHere ?? undefined,
    });
    if (bestHere !== null) {
      const p = checkPlateau(prevBest, bestHere, flat, target(tx), dir);
      flat = p.flat;
      if (p.plateau && !plateauAt) plateauAt = { file: c.file, step: c.step, prev: prevBest };
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
      ckpts,
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
    });
  }
  if (plateauAt) {
    return sup.plateau(tx, id, {
      ckpt: plateauAt.file,
      step: plateauAt.step,
      previous_ckpt_best: plateauAt.prev,
      target: target(tx),
      flat_ckpts: flat,
      freed: "gpu",
    });
  }
  if (prog.hung) sup.hung(tx, id);
}

function trackFast(tx: Tx, node: PlanNode, o: NodeObs): void {
  const ns = tx.state.nodes[node.id]!;
  const t = trackScope(ns, o.fp, o.tokens);
  tx.emit({ e: "note", node: node.id, set: { fp: t.fp, trail: t.trail, frozen: t.frozen } });
  if (t.oscillation) {
    return sup.bounce(tx, node.id, "OSCILLATION_TRIP", {
      trail: t.oscillation,
      scope: `nodes/${node.scope}`,
    });
  }
  if (t.stuck) {
    sup.bounce(tx, node.id, "BUDGET_TRIP", {
      frozen_ticks: t.frozen,
      fingerprint: t.fp,
      tokens_burned: o.tokens,
      tokens_total: tx.state.nodes[node.id]!.tokens,
      scope: `nodes/${node.scope}`,
    });
  }
}

function budgets(tx: Tx, node: PlanNode): void {
  const ns = tx.state.nodes[node.id]!;
  const ticks = tx.tick - ns.started;
  if (node.budget.ticks !== undefined && ticks > node.budget.ticks) {
    sup.overBudget(tx, node.id, { budget: "ticks", limit: node.budget.ticks, used: ticks });
  } else if (node.budget.tokens !== undefined && ns.tokens > node.budget.tokens) {
    sup.overBudget(tx, node.id, { budget: "tokens", limit: node.budget.tokens, used: ns.tokens });
  }
}

/** The dev score at a checkpoint's step: the last metric point at or before it, else the previous value. */
function devAt(points: readonly { step: number; value: number }[], step: number, prev: number | null) {
  return points.filter((p) => p.step <= step).at(-1)?.value ?? prev ?? undefined;
}

/** The score a long node must beat: the verified baseline's, else the protocol's pinned target. */
export function target(tx: Tx): number | null {
  const base = tx.state.plan.nodes.find((n) => n.role === "baseline");
  const ns = base ? tx.state.nodes[base.id] : undefined;
  if (ns?.status === "verified" && ns.manifest?.score !== undefined) return ns.manifest.score;
  return tx.state.plan.protocol.target ?? null;
}

function answeredBy(tx: Tx): NodeId | null {
  const m = tx.state.plan.nodes.find((n) =>
    n.role === "train" && tx.state.nodes[n.id]!.status === "verified"
  );
  return m?.id ?? null;
}
