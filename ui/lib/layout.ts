/**
 * Layered layout of a plan's task graph with dagre. Every node gets a place, including spawn-only ones, so a
 * node grown by graph surgery appears in a slot kept for it instead of reshuffling the picture. Back-edges
 * are laid out reversed (they point upstream) and their route flipped back, so they never create a cycle.
 *
 * @module
 */
import dagre from "@dagrejs/dagre";
import type { EdgeKind, NodeId, NodeKind, Plan } from "../../src/graph/types.ts";

export interface Point {
  x: number;
  y: number;
}

export interface NodeBox {
  id: NodeId;
  title: string;
  kind: NodeKind;
  role: string;
  /** Centre. */
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface EdgeRoute {
  key: string;
  from: NodeId;
  to: NodeId;
  kind: EdgeKind;
  laps?: number;
  points: Point[];
  /** Where a label (a back-edge's laps) goes. */
  mid: Point;
}

export interface Layout {
  width: number;
  height: number;
  nodes: Record<NodeId, NodeBox>;
  edges: EdgeRoute[];
}

export const NODE_W = 120;
export const NODE_H = 62;
const MARGIN = 24;

export function layoutPlan(plan: Plan): Layout {
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: "LR", nodesep: 26, ranksep: 44, edgesep: 16, marginx: MARGIN, marginy: MARGIN });
  g.setDefaultEdgeLabel(() => ({}));
  for (const id of plan.order) g.setNode(id, { width: NODE_W, height: NODE_H });
  plan.edges.forEach((e, i) => {
    const name = `e${i}`;
    if (e.kind === "back_edge") g.setEdge(e.to, e.from, { weight: 0, minlen: 1 }, name);
    else g.setEdge(e.from, e.to, { weight: e.kind === "artifact" ? 2 : 1, minlen: 1 }, name);
  });
  dagre.layout(g);

  const nodes: Record<NodeId, NodeBox> = {};
  for (const n of plan.nodes) {
    const p = g.node(n.id) as { x: number; y: number } | undefined;
    if (!p) continue;
    nodes[n.id] = {
      id: n.id,
      title: n.title,
      kind: n.kind,
      role: n.role,
      x: p.x,
      y: p.y,
      w: NODE_W,
      h: NODE_H,
    };
  }
  const edges = plan.edges.map((e, i): EdgeRoute => {
    const back = e.kind === "back_edge";
    const lab = g.edge(back ? e.to : e.from, back ? e.from : e.to, `e${i}`) as
      | { points?: Point[] }
      | undefined;
    let points = (lab?.points ?? []).map((p) => ({ x: p.x, y: p.y }));
    if (back) points = points.reverse();
    if (points.length < 2) points = straight(nodes[e.from], nodes[e.to]);
    const route: EdgeRoute = {
      key: `e${i}`,
      from: e.from,
      to: e.to,
      kind: e.kind,
      points,
      mid: middle(points),
    };
    if (e.laps !== undefined) route.laps = e.laps;
    return route;
  });
  const graph = g.graph() as { width?: number; height?: number };
  return { width: Math.ceil(graph.width ?? 0), height: Math.ceil(graph.height ?? 0), nodes, edges };
}

function straight(a: NodeBox | undefined, b: NodeBox | undefined): Point[] {
  return a && b ? [{ x: a.x, y: a.y }, { x: b.x, y: b.y }] : [{ x: 0, y: 0 }, { x: 0, y: 0 }];
}

function middle(points: readonly Point[]): Point {
  return points[Math.floor(points.length / 2)] ?? { x: 0, y: 0 };
}

/** An SVG path through the route's points, smoothed by quadratic curves through the midpoints. */
export function pathOf(points: readonly Point[]): string {
  const f = (n: number) => Math.round(n * 10) / 10;
  const [first, ...rest] = points;
  if (!first) return "";
  if (rest.length < 2) {
    return `M${f(first.x)},${f(first.y)}` + rest.map((p) => ` L${f(p.x)},${f(p.y)}`).join("");
  }
  let d = `M${f(first.x)},${f(first.y)}`;
  for (let i = 0; i < rest.length - 1; i++) {
    const p = rest[i]!;
    const q = rest[i + 1]!;
    d += ` Q${f(p.x)},${f(p.y)} ${f((p.x + q.x) / 2)},${f((p.y + q.y) / 2)}`;
  }
  const end = rest.at(-1)!;
  return d + ` L${f(end.x)},${f(end.y)}`;
}
