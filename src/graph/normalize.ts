/**
 * The normalizer: a pure function from a plan's nodes and edges to a graph the engine can run. Tarjan's
 * strongly connected components over artifact edges find cycles; an undeclared 2-cycle is demoted to a
 * metered back-edge, anything larger is rejected; the order is topological with lexicographic ties.
 *
 * @module
 */
import { ACCEPT_MAX_LAPS } from "../thresholds.ts";
import type { NodeId, PlanEdge } from "./types.ts";

export interface NormalizeIssue {
  /** Index into the input edges of the edge the issue is about. */
  edge: number;
  message: string;
  /** Cycle members, in cycle order, for a rejected cycle. */
  cycle?: NodeId[];
}

export interface Normalized {
  edges: PlanEdge[];
  order: NodeId[];
  warnings: NormalizeIssue[];
  errors: NormalizeIssue[];
}

const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Strongly connected components (Tarjan), each sorted, listed in a deterministic order. */
export function stronglyConnected(nodes: readonly NodeId[], adj: ReadonlyMap<NodeId, NodeId[]>): NodeId[][] {
  let counter = 0;
  const index = new Map<NodeId, number>();
  const low = new Map<NodeId, number>();
  const onStack = new Set<NodeId>();
  const stack: NodeId[] = [];
  const out: NodeId[][] = [];
  const visit = (v: NodeId) => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of adj.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const comp: NodeId[] = [];
      let w: NodeId;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        comp.push(w);
      } while (w !== v);
      out.push(comp.sort(byId));
    }
  };
  for (const v of [...nodes].sort(byId)) if (!index.has(v)) visit(v);
  return out.sort((a, b) => byId(a[0]!, b[0]!));
}

/** A cycle through the smallest member of `members`, following sorted adjacency inside the set. */
function cycleThrough(members: NodeId[], adj: ReadonlyMap<NodeId, NodeId[]>): NodeId[] {
  const inside = new Set(members);
  const start = members[0]!;
  const path: NodeId[] = [start];
  const seen = new Set<NodeId>([start]);
  const dfs = (v: NodeId): boolean => {
    for (const w of adj.get(v) ?? []) {
      if (!inside.has(w)) continue;
      if (w === start) return true;
      if (seen.has(w)) continue;
      seen.add(w);
      path.push(w);
      if (dfs(w)) return true;
      path.pop();
    }
    return false;
  };
  dfs(start);
  return [...path, start];
}

function adjacency(nodes: readonly NodeId[], edges: readonly PlanEdge[]): Map<NodeId, NodeId[]> {
  const adj = new Map<NodeId, NodeId[]>(nodes.map((n) => [n, []]));
  for (const e of edges) {
    if (e.kind !== "artifact" || !adj.has(e.from) || !adj.has(e.to)) continue;
    const list = adj.get(e.from)!;
    if (!list.includes(e.to)) list.push(e.to);
  }
  for (const list of adj.values()) list.sort(byId);
  return adj;
}

/** Topological order over artifact edges; among ready nodes the lexicographically smallest goes first. */
export function topoOrder(nodes: readonly NodeId[], edges: readonly PlanEdge[]): NodeId[] {
  const adj = adjacency(nodes, edges);
  const indeg = new Map<NodeId, number>(nodes.map((n) => [n, 0]));
  for (const targets of adj.values()) for (const t of targets) indeg.set(t, indeg.get(t)! + 1);
  const ready = nodes.filter((n) => indeg.get(n) === 0).sort(byId);
  const order: NodeId[] = [];
  while (ready.length) {
    const v = ready.shift()!;
    order.push(v);
    for (const w of adj.get(v)!) {
      const d = indeg.get(w)! - 1;
      indeg.set(w, d);
      if (d === 0) {
        const at = ready.findIndex((r) => byId(w, r) < 0);
        ready.splice(at === -1 ? ready.length : at, 0, w);
      }
    }
  }
  return order;
}

/**
 * Normalize a graph. Self-loops and cycles of three or more nodes are errors; an undeclared artifact
 * 2-cycle A ⇄ B keeps the edge from the smaller id and demotes the other to a back_edge with
 * ACCEPT_MAX_LAPS laps.
 */
export function normalize(nodes: readonly NodeId[], edges: readonly PlanEdge[]): Normalized {
  const warnings: NormalizeIssue[] = [];
  const errors: NormalizeIssue[] = [];
  const out: PlanEdge[] = edges.map((e) => ({ ...e }));
  const edgeIndex = (from: NodeId, to: NodeId) =>
    edges.findIndex((e) => e.kind === "artifact" && e.from === from && e.to === to);

  edges.forEach((e, i) => {
    if (e.kind === "artifact" && e.from === e.to) {
      errors.push({ edge: i, message: `node "${e.from}" cannot depend on itself`, cycle: [e.from, e.from] });
    }
  });
  const adj = adjacency(nodes, edges.filter((e) => e.from !== e.to));
  for (const comp of stronglyConnected(nodes, adj)) {
    if (comp.length === 1) continue;
    if (comp.length === 2) {
      const [a, b] = comp as [NodeId, NodeId];
      const i = edgeIndex(b, a);
      edges.forEach((e, j) => {
        if (e.kind === "artifact" && e.from === b && e.to === a) {
          out[j] = { from: b, to: a, kind: "back_edge", laps: ACCEPT_MAX_LAPS, demoted: true };
        }
      });
      warnings.push({
        edge: i,
        message: `artifact edges ${a} → ${b} and ${b} → ${a} form an undeclared 2-cycle: ` +
          `${b} → ${a} demoted to a metered back_edge (laps ${ACCEPT_MAX_LAPS})`,
      });
      continue;
    }
    const cycle = cycleThrough(comp, adj);
    errors.push({
      edge: edgeIndex(cycle.at(-2)!, cycle.at(-1)!),
      cycle,
      message: `artifact edges form a cycle over ${comp.join(", ")}: ${cycle.join(" → ")} ` +
        `(declare the edge that closes the loop as a back_edge with laps)`,
    });
  }
  const order = errors.length ? [] : topoOrder(nodes, out);
  return { edges: out, order, warnings, errors };
}
