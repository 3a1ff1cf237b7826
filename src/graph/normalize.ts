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
 * Ids numbered in lexicographic order: comparing two ranks is comparing the ids, so every pass below works
 * on small integers and typed arrays, and ties still break exactly as by id.
 */
interface Ranked {
  ids: NodeId[];
  rank: Map<NodeId, number>;
}

function rankIds(ids: Iterable<NodeId>): Ranked {
  const sorted = [...new Set(ids)].sort(byId);
  return { ids: sorted, rank: new Map(sorted.map((id, i) => [id, i])) };
}

/** Each node's successors by rank, sorted and without repeats. */
function successors(r: Ranked, pairs: Iterable<[NodeId, NodeId]>): number[][] {
  const out: number[][] = r.ids.map(() => []);
  for (const [from, to] of pairs) {
    const a = r.rank.get(from);
    const b = r.rank.get(to);
    if (a !== undefined && b !== undefined) out[a]!.push(b);
  }
  for (const list of out) {
    if (list.length < 2) continue;
    list.sort((x, y) => x - y);
    let k = 1;
    for (let i = 1; i < list.length; i++) if (list[i] !== list[k - 1]) list[k++] = list[i]!;
    list.length = k;
  }
  return out;
}

function* artifactPairs(edges: readonly PlanEdge[]): Generator<[NodeId, NodeId]> {
  for (const e of edges) if (e.kind === "artifact") yield [e.from, e.to];
}

/**
 * Tarjan's strongly connected components over ranks, from `roots` in order, with an explicit stack (a
 * plan-sized chain cannot overflow the call stack). Components come sorted, listed by their smallest member.
 */
function componentsOf(succ: number[][], roots: Iterable<number>): number[][] {
  const n = succ.length;
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const out: number[][] = [];
  const pathNode: number[] = [];
  const pathNext: number[] = [];
  let counter = 0;
  const enter = (v: number) => {
    index[v] = low[v] = counter++;
    stack.push(v);
    onStack[v] = 1;
    pathNode.push(v);
    pathNext.push(0);
  };
  for (const root of roots) {
    if (index[root] !== -1) continue;
    enter(root);
    while (pathNode.length) {
      const top = pathNode.length - 1;
      const v = pathNode[top]!;
      const next = succ[v]!;
      const at = pathNext[top]!;
      if (at < next.length) {
        pathNext[top] = at + 1;
        const w = next[at]!;
        if (index[w] === -1) enter(w);
        else if (onStack[w]) low[v] = Math.min(low[v]!, index[w]!);
        continue;
      }
      pathNode.pop();
      pathNext.pop();
      if (low[v] === index[v]) {
        const comp: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          comp.push(w);
        } while (w !== v);
        out.push(comp.sort((x, y) => x - y));
      }
      const parent = pathNode[pathNode.length - 1];
      if (parent !== undefined) low[parent] = Math.min(low[parent]!, low[v]!);
    }
  }
  return out.sort((a, b) => a[0]! - b[0]!);
}

/** Strongly connected components (Tarjan), each sorted, listed in a deterministic order. */
export function stronglyConnected(nodes: readonly NodeId[], adj: ReadonlyMap<NodeId, NodeId[]>): NodeId[][] {
  const all = new Set(nodes);
  for (const [from, to] of adj) {
    all.add(from);
    for (const t of to) all.add(t);
  }
  const r = rankIds(all);
  const pairs = function* (): Generator<[NodeId, NodeId]> {
    for (const [from, to] of adj) for (const t of to) yield [from, t];
  };
  const roots = [...new Set(nodes)].map((id) => r.rank.get(id)!).sort((a, b) => a - b);
  return componentsOf(successors(r, pairs()), roots).map((c) => c.map((i) => r.ids[i]!));
}

/** A cycle through the smallest member of `members`, following sorted successors inside the set. */
function cycleThrough(members: number[], succ: number[][]): number[] {
  const inside = new Set(members);
  const start = members[0]!;
  const seen = new Set<number>([start]);
  // path[k] is the node of frame k; both grow and shrink together (an explicit depth-first search).
  const path: number[] = [start];
  const next: number[] = [0];
  while (path.length) {
    const v = path[path.length - 1]!;
    const list = succ[v]!;
    const i = next[next.length - 1]!;
    if (i >= list.length) {
      path.pop();
      next.pop();
      continue;
    }
    next[next.length - 1] = i + 1;
    const w = list[i]!;
    if (!inside.has(w)) continue;
    if (w === start) return [...path, start];
    if (seen.has(w)) continue;
    seen.add(w);
    path.push(w);
    next.push(0);
  }
  return [start, start];
}

/** Topological order of ranks; among ready nodes the smallest goes first (a binary heap, not a scan). */
function orderOf(succ: number[][]): number[] {
  const n = succ.length;
  const indeg = new Int32Array(n);
  for (const list of succ) for (const t of list) indeg[t]!++;
  const heap = new MinHeap();
  for (let v = 0; v < n; v++) if (indeg[v] === 0) heap.push(v);
  const order: number[] = [];
  for (let v = heap.pop(); v !== undefined; v = heap.pop()) {
    order.push(v);
    for (const w of succ[v]!) if (--indeg[w]! === 0) heap.push(w);
  }
  return order;
}

/** Topological order over artifact edges; among ready nodes the lexicographically smallest goes first. */
export function topoOrder(nodes: readonly NodeId[], edges: readonly PlanEdge[]): NodeId[] {
  const r = rankIds(nodes);
  return orderOf(successors(r, artifactPairs(edges))).map((i) => r.ids[i]!);
}

/** A binary min-heap of ranks. */
class MinHeap {
  #a: number[] = [];

  push(v: number): void {
    const a = this.#a;
    let i = a.push(v) - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p]! <= v) break;
      a[i] = a[p]!;
      i = p;
    }
    a[i] = v;
  }

  pop(): number | undefined {
    const a = this.#a;
    const top = a[0];
    const last = a.pop();
    if (top === undefined || last === undefined || a.length === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= a.length) break;
      const c = l + 1 < a.length && a[l + 1]! < a[l]! ? l + 1 : l;
      if (last <= a[c]!) break;
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
  const r = rankIds(nodes);
  const n = r.ids.length;
  // Every artifact edge's index by its ends (as one number), so a plan with many 2-cycles stays linear.
  const artifactAt = new Map<number, number[]>();
  const key = (from: NodeId, to: NodeId) => {
    const a = r.rank.get(from);
    const b = r.rank.get(to);
    return a === undefined || b === undefined ? -1 : a * n + b;
  };
  edges.forEach((e, i) => {
    if (e.kind !== "artifact") return;
    const k = key(e.from, e.to);
    const list = artifactAt.get(k);
    if (list) list.push(i);
    else artifactAt.set(k, [i]);
  });
  const indicesOf = (from: NodeId, to: NodeId) => artifactAt.get(key(from, to)) ?? [];
  const edgeIndex = (from: NodeId, to: NodeId) => indicesOf(from, to)[0] ?? -1;

  edges.forEach((e, i) => {
    if (e.kind === "artifact" && e.from === e.to) {
      errors.push({ edge: i, message: `node "${e.from}" cannot depend on itself`, cycle: [e.from, e.from] });
    }
  });
  const succ = successors(r, artifactPairs(edges.filter((e) => e.from !== e.to)));
  for (const members of componentsOf(succ, r.ids.keys())) {
    if (members.length === 1) continue;
    const comp = members.map((i) => r.ids[i]!);
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
    const cycle = cycleThrough(members, succ).map((i) => r.ids[i]!);
    errors.push({
      edge: edgeIndex(cycle.at(-2)!, cycle.at(-1)!),
      cycle,
      message: `artifact edges form a cycle over ${comp.join(", ")}: ${cycle.join(" → ")} ` +
        `(declare the edge that closes the loop as a back_edge with laps)`,
    });
  }
  const order = errors.length ? [] : orderOf(successors(r, artifactPairs(out))).map((i) => r.ids[i]!);
  return { edges: out, order, warnings, errors };
}
