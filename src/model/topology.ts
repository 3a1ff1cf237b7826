/**
 * Graph questions over a plan and the live state: active edges, parents, closures, lap budgets.
 *
 * @module
 */
import type { NodeId, Plan, PlanEdge, PlanNode } from "../graph/types.ts";
import { ACCEPT_MAX_LAPS } from "../thresholds.ts";
import type { RunState } from "./state.ts";

export function nodeOf(plan: Plan, id: NodeId): PlanNode {
  const n = plan.nodes.find((x) => x.id === id);
  if (!n) throw new RangeError(`Cannot find node "${id}" in the plan`);
  return n;
}

/** Edges whose both ends exist in the live graph (spawned). */
export function activeEdges(state: RunState): PlanEdge[] {
  return state.plan.edges.filter((e) => state.nodes[e.from]?.spawned && state.nodes[e.to]?.spawned);
}

export function parents(state: RunState, id: NodeId, kind: PlanEdge["kind"]): NodeId[] {
  return activeEdges(state).filter((e) => e.to === id && e.kind === kind).map((e) => e.from).sort();
}

export function children(state: RunState, id: NodeId, kind: PlanEdge["kind"]): NodeId[] {
  return activeEdges(state).filter((e) => e.from === id && e.kind === kind).map((e) => e.to).sort();
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
  const edges = activeEdges(state).filter((e) => e.kind !== "back_edge");
  const seen = new Set<NodeId>();
  const stack = [id];
  while (stack.length) {
    const v = stack.pop()!;
    for (const e of edges) {
      if (e.from === v && !seen.has(e.to) && e.to !== id) {
        seen.add(e.to);
        stack.push(e.to);
      }
    }
  }
  return inPlanOrder(state.plan, [...seen].filter((n) => include(nodeOf(state.plan, n))));
}

/** Every artifact ancestor of `id` (transitively), sorted: what its worker may read. */
export function ancestors(state: RunState, id: NodeId): NodeId[] {
  const edges = activeEdges(state).filter((e) => e.kind === "artifact");
  const seen = new Set<NodeId>();
  const stack = [id];
  while (stack.length) {
    const v = stack.pop()!;
    for (const e of edges) {
      if (e.to === v && !seen.has(e.from) && e.from !== id) {
        seen.add(e.from);
        stack.push(e.from);
      }
    }
  }
  return [...seen].sort();
}

export function inPlanOrder(plan: Plan, ids: Iterable<NodeId>): NodeId[] {
  const set = new Set(ids);
  return plan.order.filter((n) => set.has(n));
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
