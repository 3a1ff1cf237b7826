/**
 * Colours and shapes of the dashboard's vocabulary: one colour per node status, one per ladder rung, one
 * shape per node kind. Typed as total maps, so a new status or rung does not compile until it has a look.
 *
 * @module
 */
import type { EdgeKind, NodeKind } from "../../src/graph/types.ts";
import type { Ladder, Status } from "../../src/model/state.ts";

export interface Swatch {
  fill: string;
  ink: string;
  label: string;
}

export const STATUS_LOOK: Readonly<Record<Status, Swatch>> = {
  pending: { fill: "#d7dce2", ink: "#28313b", label: "pending" },
  running: { fill: "#3b82f6", ink: "#ffffff", label: "running" },
  verified: { fill: "#16a34a", ink: "#ffffff", label: "verified" },
  stale: { fill: "#facc15", ink: "#28313b", label: "stale" },
  blocked: { fill: "#dc2626", ink: "#ffffff", label: "blocked" },
  stuck: { fill: "#f97316", ink: "#1f1300", label: "stuck" },
  oscillating: { fill: "#a855f7", ink: "#ffffff", label: "oscillating" },
  plateaued: { fill: "#92400e", ink: "#ffffff", label: "plateaued" },
  superseded: { fill: "#64748b", ink: "#ffffff", label: "superseded" },
  killed: { fill: "#111827", ink: "#ffffff", label: "killed" },
};

/** Cheapest rung is the calmest colour; the fuse is the loudest. */
export const LADDER_LOOK: Readonly<Record<Ladder, Swatch>> = {
  bounce: { fill: "#0ea5e9", ink: "#ffffff", label: "bounce" },
  blame_routing: { fill: "#d946ef", ink: "#ffffff", label: "blame routing" },
  downstream_invalidation: { fill: "#f59e0b", ink: "#1f1300", label: "downstream invalidation" },
  graph_surgery: { fill: "#14b8a6", ink: "#ffffff", label: "graph surgery" },
  fuse: { fill: "#b91c1c", ink: "#ffffff", label: "fuse" },
};

export const KIND_LABEL: Readonly<Record<NodeKind, string>> = {
  fast: "fast (rectangle)",
  long: "long (rounded, with progress)",
  reactive: "reactive (hexagon)",
};

/** SVG stroke-dasharray per edge kind: artifact solid, stream dashed, back-edge dotted. */
export const EDGE_DASH: Readonly<Record<EdgeKind, string | undefined>> = {
  artifact: undefined,
  stream: "7 5",
  back_edge: "2 4",
};

/** Distinct line colours for metric curves, in plan order. */
export const SERIES_COLORS = ["#2563eb", "#9333ea", "#059669", "#ea580c", "#db2777", "#0891b2"] as const;
