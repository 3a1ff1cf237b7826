/// <reference lib="dom" />
/**
 * All curves of a sweep on one chart: every configuration's dev metric by step, the rungs as dashed vertical
 * lines, a cross where halving cut a configuration, the winner drawn thick, the baseline dashed. Drawn with
 * uPlot from `sweepCharts()` (ui/models/sweep_model.ts); one chart per sweep, rebuilt when its curves change.
 *
 * @module
 */
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import { SERIES_COLORS, STATUS_LOOK } from "../lib/palette.ts";
import { type SweepChart as Chart, sweepCharts } from "../models/sweep_model.ts";
import type { ViewModel } from "../models/view_model.ts";

const HEIGHT = 240;

/** Draws the rungs and the cut markers on top of the plotted curves. */
function overlay(c: Chart): (u: uPlot) => void {
  return (u) => {
    const ctx = u.ctx;
    const { top, height } = u.bbox;
    ctx.save();
    ctx.setLineDash([4, 4]);
    ctx.strokeStyle = "#94a3b8";
    ctx.fillStyle = "#475569";
    ctx.font = `${Math.round(11 * devicePixelRatio)}px sans-serif`;
    for (const r of c.rungs) {
      const x = u.valToPos(r, "x", true);
      ctx.beginPath();
      ctx.moveTo(x, top);
      ctx.lineTo(x, top + height);
      ctx.stroke();
      ctx.fillText(`rung ${r}`, x + 3, top + 12 * devicePixelRatio);
    }
    ctx.setLineDash([]);
    ctx.strokeStyle = STATUS_LOOK.superseded.fill;
    ctx.lineWidth = 2 * devicePixelRatio;
    const d = 4 * devicePixelRatio;
    for (const cut of c.cuts) {
      if (cut.value === null) continue;
      const x = u.valToPos(cut.step, "x", true);
      const y = u.valToPos(cut.value, "y", true);
      ctx.beginPath();
      ctx.moveTo(x - d, y - d);
      ctx.lineTo(x + d, y + d);
      ctx.moveTo(x + d, y - d);
      ctx.lineTo(x - d, y + d);
      ctx.stroke();
    }
    ctx.restore();
  };
}

function OneSweep({ chart, metric }: { chart: Chart; metric: string }) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<{ u: uPlot; key: string } | null>(null);
  const points = chart.data[0]!.length;
  const base = chart.baseline;
  const data = base === null ? chart.data : [...chart.data, chart.data[0]!.map(() => base)];

  useEffect(() => {
    const el = host.current;
    if (!el || points === 0) {
      plot.current?.u.destroy();
      plot.current = null;
      return;
    }
    const key = [...chart.curves.map((c) => `${c.node}:${c.status}`), chart.winner, chart.cuts.length, base]
      .join("|");
    if (plot.current?.key === key) {
      plot.current.u.setData(data as uPlot.AlignedData);
      return;
    }
    plot.current?.u.destroy();
    const series: uPlot.Series[] = [
      { label: "step" },
      ...chart.curves.map((c, k): uPlot.Series => ({
        label: `${c.node} ${c.label}`,
        stroke: c.status === "superseded"
          ? STATUS_LOOK.superseded.fill
          : SERIES_COLORS[k % SERIES_COLORS.length],
        width: c.node === chart.winner ? 3 : c.status === "superseded" ? 1 : 1.5,
        spanGaps: true,
        points: { show: false },
      })),
      ...(base === null
        ? []
        : [{ label: "baseline", stroke: "#64748b", dash: [6, 4], width: 1.5, points: { show: false } }]),
    ];
    const opts: uPlot.Options = {
      width: Math.max(280, el.clientWidth),
      height: HEIGHT,
      scales: { x: { time: false } },
      axes: [{ label: "step" }, { label: metric }],
      series,
      hooks: { draw: [overlay(chart)] },
    };
    plot.current = { u: new uPlot(opts, data as uPlot.AlignedData, el), key };
  });
  useEffect(() => () => plot.current?.u.destroy(), []);

  const cut = chart.cuts.length;
  return (
    <figure class="sweep-chart" data-sweep={chart.sweep} data-points={points} data-cuts={cut}>
      <figcaption>
        Sweep {chart.sweep}: {chart.curves.length} configurations, rungs {chart.rungs.join(", ") || "none"},
        {" "}
        {cut} cut{cut === 1 ? "" : "s"}
        {chart.winner ? `, winner ${chart.winner}` : ""}
      </figcaption>
      {points === 0 && <p class="quiet">No configuration has a metric point yet.</p>}
      <div ref={host} class="chart" />
    </figure>
  );
}

/** One chart per sweep of the run at the player's cursor; nothing when the plan has no sweep. */
export function SweepChart({ view }: { view: ViewModel }) {
  const state = view.state.value;
  const metrics = view.metrics.value;
  if (!state?.plan.sweeps?.length || !metrics) return null;
  const incidents = view.incidents.value.map((p) => p.incident);
  return (
    <div class="sweeps">
      {sweepCharts(state, metrics, incidents).map((c) => (
        <OneSweep key={c.sweep} chart={c} metric={metrics.metric} />
      ))}
    </div>
  );
}
