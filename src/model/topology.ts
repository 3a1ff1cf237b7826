/**
 * Graph questions over a plan and the live state: active edges, parents, closures, lap budgets.
 *
 * @module
 */
import type { NodeId, Plan, PlanEdge, PlanNode } from "../graph/types.ts";
import { ACCEPT_MAX_LAPS } from "../thresholds.ts";
import type { RunState } from "./state.ts";

interface Index {
  byId: Map<NodeId, PlanNode>;
  into: Map<NodeId, PlanEdge[]>;
  outOf: Map<NodeId, PlanEdge[]>;
  rank: Map<NodeId, number>;
}

/** Per-plan lookups, built once: a plan is immutable once loaded, so its index never goes stale. */
const indexes = new WeakMap<Plan, Index>();

function indexOf(plan: Plan): Index {
  let ix = indexes.get(plan);
  if (ix) return ix;
  ix = { byId: new Map(), into: new Map(), outOf: new Map(), rank: new Map() };
  for (const n of plan.nodes) ix.byId.set(n.id, n);
  for (const e of plan.edges) {
    (ix.into.get(e.to) ?? ix.into.set(e.to, []).get(e.to)!).push(e);
    (ix.outOf.get(e.from) ?? ix.outOf.set(e.from, []).get(e.from)!).push(e);
  }
  plan.order.forEach((id, i) => ix!.rank.set(id, i));
  indexes.set(plan, ix);
  return ix;
}

export function nodeOf(plan: Plan, id: NodeId): PlanNode {
  const n = indexOf(plan).byId.get(id);
  if (!n) throw new RangeError(`Cannot find node "${id}" in the plan`);
  return n;
}

const live = (state: RunState, e: PlanEdge) => !!state.nodes[e.from]?.spawned && !!state.nodes[e.to]?.spawned;

/** Edges whose both ends exist in the live graph (spawned). */
export function activeEdges(state: RunState): PlanEdge[] {
  return state.plan.edges.filter((e) => live(state, e));
}

export function parents(state: RunState, id: NodeId, kind: PlanEdge["kind"]): NodeId[] {
  return (indexOf(state.plan).into.get(id) ?? []).filter((e) => e.kind === kind && live(state, e))
    .map((e) => e.from).sort();
}

export function children(state: RunState, id: NodeId, kind: PlanEdge["kind"]): NodeId[] {
  return (indexOf(state.plan).outOf.get(id) ?? []).filter((e) => e.kind === kind && live(state, e))
    .map((e) => e.to).sort();
}

/**
 * Nodes downstream of `id` along artifact and stream edges (not back-edges), in plan order. `through`
 * decides whether a node is included; the walk continues past excluded nodes too (taint spares training
 * but still reaches the readings behind it).
 */
export function downstream(
  state: RunState,
  id: NodeId,
  include: (n: PlanNode) => boolean = () => true,
): NodeId[] {
  const ix = indexOf(state.plan);
  const seen = new Set<NodeId>();
  const stack = [id];
  while (stack.length) {
    const v = stack.pop()!;
    for (const e of ix.outOf.get(v) ?? []) {
      if (e.kind === "back_edge" || !live(state, e) || seen.has(e.to) || e.to === id) continue;
      seen.add(e.to);
      stack.push(e.to);
    }
  }
  return inPlanOrder(state.plan, [...seen].filter((n) => include(nodeOf(state.plan, n))));
}

/** Every artifact ancestor of `id` (transitively), sorted: what its worker may read. */
export function ancestors(state: RunState, id: NodeId): NodeId[] {
  const ix = indexOf(state.plan);
  const seen = new Set<NodeId>();
  const stack = [id];
  while (stack.length) {
    const v = stack.pop()!;
    for (const e of ix.into.get(v) ?? []) {
      if (e.kind !== "artifact" || !live(state, e) || seen.has(e.from) || e.from === id) continue;
      seen.add(e.from);
      stack.push(e.from);
    }
  }
  return [...seen].sort();
}

export function inPlanOrder(plan: Plan, ids: Iterable<NodeId>): NodeId[] {
  const rank = indexOf(plan).rank;
  return [...new Set(ids)].filter((n) => rank.has(n)).sort((a, b) => rank.get(a)! - rank.get(b)!);
}

/** A node's lap budget: the laps of the back-edge into it, else ACCEPT_MAX_LAPS. */
export function lapBudget(plan: Plan, id: NodeId): { laps: number; via: string | null } {
  const back = plan.edges.find((e) => e.kind === "back_edge" && e.to === id);
  return back ? { laps: back.laps ?? ACCEPT_MAX_LAPS, via: `${back.from}→${back.to}` } : {
    laps: ACCEPT_MAX_LAPS,
    via: null,
  };
}

export function slotOf(n: PlanNode): "gpu" | "cpu" | null {
  return n.kind === "long" ? "gpu" : n.kind === "fast" ? "cpu" : null;
}
