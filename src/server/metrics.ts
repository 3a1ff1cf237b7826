/**
 * Metric curves of long nodes, taken from replay `metric` events, with the baseline score they are judged
 * against. Pure, so the API and the browser (which cuts the replay at the player's tick) share it.
 *
 * @module
 */
import type { Direction, NodeId } from "../graph/types.ts";
import type { ReplayLine } from "../model/events.ts";
import type { RunState } from "../model/state.ts";

export interface Series {
  step: number[];
  value: number[];
}

export interface MetricsView {
  metric: string;
  direction: Direction;
  /** The verified baseline's score; null until the baseline is verified. */
  baseline: { node: NodeId; score: number } | null;
  /** Long nodes in plan order, each with the points seen so far (possibly none). */
  series: Record<NodeId, Series>;
}

export function metricsOf(state: RunState, lines: Iterable<ReplayLine>): MetricsView {
  const { plan } = state;
  const series: Record<NodeId, Series> = {};
  // One map, not a search per node: a plan of 100,000 nodes stays linear.
  const kinds = new Map(plan.nodes.map((n) => [n.id, n.kind]));
  for (const id of plan.order) {
    if (kinds.get(id) === "long") series[id] = { step: [], value: [] };
  }
  for (const line of lines) {
    for (const ev of line.events) {
      if (ev.e !== "metric") continue;
      const s = series[ev.node];
      if (s) {
        s.step.push(ev.step);
        s.value.push(ev.value);
      }
    }
  }
  const base = plan.nodes.find((n) => n.role === "baseline");
  const bs = base ? state.nodes[base.id] : undefined;
  const score = bs?.status === "verified" ? bs.manifest?.score : undefined;
  return {
    metric: plan.protocol.metric,
    direction: plan.protocol.direction,
    baseline: base && typeof score === "number" ? { node: base.id, score } : null,
    series,
  };
}
