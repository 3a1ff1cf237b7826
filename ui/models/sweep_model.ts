/**
 * What the sweep chart draws, derived from the state and the metric curves at the player's cursor: per sweep,
 * every configuration's dev curve on one step axis, the rungs, where halving cut each loser (step and value),
 * and the configuration the verdict's judgement rests on. Pure, so it is tested without a browser.
 *
 * @module
 */
import type { EvidenceMap } from "../../src/model/evidence.ts";
import type { Incident, RunState, Status } from "../../src/model/state.ts";
import { judge } from "../../src/overwatch/verdict.ts";
import type { MetricsView } from "../../src/server/metrics.ts";

export interface SweepCurve {
  node: string;
  /** "lr=0.1 depth=3": the configuration's arguments, short. */
  label: string;
  status: Status;
}

export interface SweepChart {
  sweep: string;
  title: string;
  rungs: number[];
  curves: SweepCurve[];
  /** x (steps) then one y array per curve, aligned; a step a curve lacks is null. */
  data: (number | null)[][];
  /** Where halving stopped a configuration: the checkpoint step, its value there, the rung it lost at. */
  cuts: { node: string; step: number; value: number | null; rung: number }[];
  winner: string | null;
  baseline: number | null;
}

const short = (k: string) => k === "learning_rate" ? "lr" : k;

export function sweepCharts(
  state: RunState,
  metrics: MetricsView,
  incidents: readonly Incident[],
): SweepChart[] {
  return (state.plan.sweeps ?? []).map((g) => {
    const curves = g.configs.map((c) => ({
      node: c.id,
      label: Object.entries(c.args).map(([k, v]) => `${short(k)}=${v}`).join(" "),
      status: state.nodes[c.id]?.status ?? "pending",
    }));
    const series = g.configs.map((c) => metrics.series[c.id] ?? { step: [], value: [] });
    const xs = [...new Set(series.flatMap((s) => s.step))].sort((a, b) => a - b);
    const data: (number | null)[][] = [xs];
    for (const s of series) {
      const at = new Map(s.step.map((st, k) => [st, s.value[k]!]));
      data.push(xs.map((x) => at.get(x) ?? null));
    }
    const members = new Set(g.configs.map((c) => c.id));
    const cuts = incidents.flatMap((i) => {
      if (i.type !== "SUPERSEDED_KILL" || !members.has(i.node)) return [];
      const e = i.evidence as EvidenceMap["SUPERSEDED_KILL"];
      if (e.rung === undefined) return [];
      const s = metrics.series[i.node];
      const k = s ? s.step.lastIndexOf(e.step) : -1;
      return [{ node: i.node, step: e.step, value: k >= 0 ? s!.value[k]! : null, rung: e.rung }];
    });
    const j = judge(state);
    const method = j.verdict === "RESEARCH ANSWERED" ? j.detail.method ?? null : null;
    return {
      sweep: g.node,
      title: g.title,
      rungs: g.halving?.rungs ?? [],
      curves,
      data,
      cuts,
      winner: method && members.has(method) ? method : null,
      baseline: metrics.baseline?.score ?? null,
    };
  });
}
