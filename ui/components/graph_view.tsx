/// <reference lib="dom" />
/**
 * The task graph as SVG: shape = node kind, fill = status, line style = edge kind, back-edges labelled with
 * laps spent. Nodes that do not exist yet (spawn-only, before graph surgery) are left out of their reserved
 * slot until they are grown.
 *
 * @module
 */
import type { EdgeKind } from "../../src/graph/types.ts";
import type { NodeState } from "../../src/model/state.ts";
import { type EdgeRoute, type NodeBox, pathOf } from "../lib/layout.ts";
import { EDGE_DASH, STATUS_LOOK } from "../lib/palette.ts";
import type { ViewModel } from "../models/view_model.ts";

const EDGE_COLOR: Record<EdgeKind, string> = { artifact: "#475569", stream: "#0284c7", back_edge: "#c2410c" };

function shapeOf(b: NodeBox, fill: string) {
  const { w, h } = b;
  const common = { class: "shape", fill, stroke: "#1e293b", "stroke-width": 1.5 };
  if (b.kind === "long") return <rect {...common} x={-w / 2} y={-h / 2} width={w} height={h} rx={h / 2} />;
  if (b.kind === "reactive") {
    const c = 14;
    const pts = [[-w / 2 + c, -h / 2], [w / 2 - c, -h / 2], [w / 2, 0], [w / 2 - c, h / 2], [
      -w / 2 + c,
      h / 2,
    ], [
      -w / 2,
      0,
    ]];
    return <polygon {...common} points={pts.map(([x, y]) => `${x},${y}`).join(" ")} />;
  }
  return <rect {...common} x={-w / 2} y={-h / 2} width={w} height={h} rx={5} />;
}

const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n - 1) + "…" : s);

/** Progress of a long node: its step and best dev metric so far. */
function progress(ns: NodeState): string | null {
  if (ns.step <= 0) return null;
  return `step ${ns.step}${ns.best !== null ? ` · best ${ns.best.toFixed(3)}` : ""}`;
}

function Node({ b, ns, grown }: { b: NodeBox; ns: NodeState; grown: boolean }) {
  const look = STATUS_LOOK[ns.status];
  const prog = b.kind === "long" ? progress(ns) : null;
  return (
    <g
      class={`node kind-${b.kind}${grown ? " grown" : ""}`}
      data-node={b.id}
      data-status={ns.status}
      transform={`translate(${b.x},${b.y})`}
    >
      <title>
        {`${b.id} — ${b.title} (${b.kind}, ${b.role}): ${ns.status}${ns.cause ? `, ${ns.cause}` : ""}${
          ns.job ? `; Slurm job ${ns.job.id} (attempt ${ns.job.attempt}) ${ns.job.state}` : ""
        }`}
      </title>
      {shapeOf(b, look.fill)}
      <text class="nid" y={prog ? -13 : -9} fill={look.ink} text-anchor="middle">{b.id}</text>
      <text class="ntitle" y={prog ? 1 : 6} fill={look.ink} text-anchor="middle">{clip(b.title, 17)}</text>
      <text class="nstatus" y={prog ? 13 : 20} fill={look.ink} text-anchor="middle">{ns.status}</text>
      {prog && <text class="nprog" y={24} fill={look.ink} text-anchor="middle">{prog}</text>}
      {ns.job && (
        <text class="njob" y={b.h / 2 + 11} fill="#334155" text-anchor="middle" data-job={ns.job.id}>
          {`job ${clip(ns.job.id, 12)} · ${ns.job.state}`}
        </text>
      )}
    </g>
  );
}

function Edge({ e, lap }: { e: EdgeRoute; lap: number | null }) {
  return (
    <g class={`edge edge-${e.kind}`} data-from={e.from} data-to={e.to} data-kind={e.kind}>
      <path
        d={pathOf(e.points)}
        fill="none"
        stroke={EDGE_COLOR[e.kind]}
        stroke-width={e.kind === "back_edge" ? 2 : 1.6}
        stroke-dasharray={EDGE_DASH[e.kind]}
        marker-end={`url(#arrow-${e.kind})`}
      />
      {e.kind === "back_edge" && (
        <text class="laps" x={e.mid.x} y={e.mid.y - 6} text-anchor="middle" fill={EDGE_COLOR.back_edge}>
          {`laps ${lap ?? 0}/${e.laps ?? "?"}`}
        </text>
      )}
    </g>
  );
}

export function GraphView({ view }: { view: ViewModel }) {
  const layout = view.layout.value;
  const state = view.state.value;
  const plan = view.plan.value;
  if (!layout || !state || !plan) return <div class="graph-empty">Waiting for the first tick…</div>;
  const exists = (id: string) => state.nodes[id]?.spawned === true;
  const spawnOnly = new Set(plan.nodes.filter((n) => n.spawn_only).map((n) => n.id));
  return (
    <svg
      class="graph"
      viewBox={`0 0 ${layout.width} ${layout.height}`}
      role="img"
      aria-label={`Task graph at tick ${state.tick}`}
      data-tick={state.tick}
    >
      <defs>
        {(Object.keys(EDGE_COLOR) as EdgeKind[]).map((k) => (
          <marker
            id={`arrow-${k}`}
            viewBox="0 0 10 10"
            refX="9"
            refY="5"
            markerWidth="7"
            markerHeight="7"
            orient="auto-start-reverse"
          >
            <path d="M0,0 L10,5 L0,10 z" fill={EDGE_COLOR[k]} />
          </marker>
        ))}
      </defs>
      <g class="edges">
        {layout.edges.filter((e) => exists(e.from) && exists(e.to)).map((e) => (
          <Edge key={e.key} e={e} lap={state.nodes[e.to]?.lap ?? null} />
        ))}
      </g>
      <g class="nodes">
        {plan.order.filter(exists).map((id) => {
          const b = layout.nodes[id];
          const ns = state.nodes[id];
          return b && ns ? <Node key={id} b={b} ns={ns} grown={spawnOnly.has(id)} /> : null;
        })}
      </g>
    </svg>
  );
}
