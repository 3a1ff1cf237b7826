/**
 * The normalizer: a pure function from a plan's nodes and edges to a graph the engine can run. Tarjan's
 * strongly connected components over artifact edges find cycles; an undeclared 2-cycle is demoted to a
 * metered back-edge, anything larger is rejected; the order is topological with lexicographic ties.
 * Every pass is iterative and near-linear, so a plan of 100,000 nodes is as safe as one of ten.
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

/**
 * Strongly connected components (Tarjan), each sorted, listed in a deterministic order. The depth-first
 * search keeps its own stack, so a plan-sized chain cannot overflow the call stack.
 */
export function stronglyConnected(nodes: readonly NodeId[], adj: ReadonlyMap<NodeId, NodeId[]>): NodeId[][] {
  let counter = 0;
  const index = new Map<NodeId, number>();
  const low = new Map<NodeId, number>();
  const onStack = new Set<NodeId>();
  const stack: NodeId[] = [];
  const out: NodeId[][] = [];
  /** The search path: each node with the position of its next successor to look at. */
  const path: { v: NodeId; next: number }[] = [];
  const enter = (v: NodeId) => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    path.push({ v, next: 0 });
  };
  for (const root of [...nodes].sort(byId)) {
    if (index.has(root)) continue;
    enter(root);
    while (path.length) {
      const top = path[path.length - 1]!;
      const succ = adj.get(top.v) ?? [];
      if (top.next < succ.length) {
        const w = succ[top.next++]!;
        if (!index.has(w)) enter(w);
        else if (onStack.has(w)) low.set(top.v, Math.min(low.get(top.v)!, index.get(w)!));
        continue;
      }
      path.pop();
      const v = top.v;
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
      const parent = path[path.length - 1];
      if (parent) low.set(parent.v, Math.min(low.get(parent.v)!, low.get(v)!));
    }
  }
  return out.sort((a, b) => byId(a[0]!, b[0]!));
}

/** A cycle through the smallest member of `members`, following sorted adjacency inside the set. */
function cycleThrough(members: NodeId[], adj: ReadonlyMap<NodeId, NodeId[]>): NodeId[] {
  const inside = new Set(members);
  const start = members[0]!;
  const seen = new Set<NodeId>([start]);
  // path[k] is the node of frame k; both grow and shrink together (an explicit depth-first search).
  const path: NodeId[] = [start];
  const next: number[] = [0];
  while (path.length) {
    const v = path[path.length - 1]!;
    const succ = adj.get(v) ?? [];
    const i = next[next.length - 1]!;
    if (i >= succ.length) {
      path.pop();
      next.pop();
      continue;
    }
    next[next.length - 1] = i + 1;
    const w = succ[i]!;
    if (!inside.has(w)) continue;
    if (w === start) return [...path, start];
    if (seen.has(w)) continue;
    seen.add(w);
    path.push(w);
    next.push(0);
  }
  return [start, start];
}

function adjacency(nodes: readonly NodeId[], edges: readonly PlanEdge[]): Map<NodeId, NodeId[]> {
  const sets = new Map<NodeId, Set<NodeId>>(nodes.map((n) => [n, new Set()]));
  for (const e of edges) {
    if (e.kind !== "artifact" || !sets.has(e.from) || !sets.has(e.to)) continue;
    sets.get(e.from)!.add(e.to);
  }
  return new Map([...sets].map(([n, set]) => [n, [...set].sort(byId)]));
}

/** Topological order over artifact edges; among ready nodes the lexicographically smallest goes first. */
export function topoOrder(nodes: readonly NodeId[], edges: readonly PlanEdge[]): NodeId[] {
  const adj = adjacency(nodes, edges);
  const indeg = new Map<NodeId, number>(nodes.map((n) => [n, 0]));
  for (const targets of adj.values()) for (const t of targets) indeg.set(t, indeg.get(t)! + 1);
  const ready = new MinHeap();
  for (const n of nodes) if (indeg.get(n) === 0) ready.push(n);
  const order: NodeId[] = [];
  for (let v = ready.pop(); v !== undefined; v = ready.pop()) {
    order.push(v);
    for (const w of adj.get(v)!) {
      const d = indeg.get(w)! - 1;
      indeg.set(w, d);
      if (d === 0) ready.push(w);
    }
  }
  return order;
}

/** A binary heap of ids, smallest first: the ready set of a wide graph without quadratic inserts. */
class MinHeap {
  #a: NodeId[] = [];

  push(v: NodeId): void {
    const a = this.#a;
    let i = a.push(v) - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (byId(a[p]!, v) <= 0) break;
      a[i] = a[p]!;
      i = p;
    }
    a[i] = v;
  }

  pop(): NodeId | undefined {
    const a = this.#a;
    const top = a[0];
    const last = a.pop();
    if (top === undefined || last === undefined || a.length === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= a.length) break;
      const c = l + 1 < a.length && byId(a[l + 1]!, a[l]!) < 0 ? l + 1 : l;
      if (byId(last, a[c]!) <= 0) break;
      a[i] = a[c]!;
      i = c;
    }
    a[i] = last;
    return top;
  }
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
  // Every artifact edge's index by its ends, so a plan with many 2-cycles stays linear.
  const artifactAt = new Map<string, number[]>();
  edges.forEach((e, i) => {
    if (e.kind !== "artifact") return;
    const k = `${e.from}\u0000${e.to}`;
    const list = artifactAt.get(k);
    if (list) list.push(i);
    else artifactAt.set(k, [i]);
  });
  const indicesOf = (from: NodeId, to: NodeId) => artifactAt.get(`${from}\u0000${to}`) ?? [];
  const edgeIndex = (from: NodeId, to: NodeId) => indicesOf(from, to)[0] ?? -1;

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
      for (const j of indicesOf(b, a)) {
        out[j] = { from: b, to: a, kind: "back_edge", laps: ACCEPT_MAX_LAPS, demoted: true };
      }
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
