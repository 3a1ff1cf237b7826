/// <reference lib="dom" />
/**
 * Metric curves of the long nodes (dev metric by step) with the baseline's score as a dashed line: what the
 * plateau detector and the verdict compare. Drawn with uPlot; rebuilt only when the set of curves changes.
 *
 * @module
 */
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import type { MetricsView } from "../../src/server/metrics.ts";
import { SERIES_COLORS } from "../lib/palette.ts";
import type { ViewModel } from "../models/view_model.ts";

const HEIGHT = 220;

/** uPlot wants one x array and y arrays aligned to it; steps missing from a curve become gaps. */
export function aligned(m: MetricsView): { names: string[]; data: (number | null)[][] } {
  // A node with no point yet (not started, or not grown yet) gets no legend entry.
  const names = Object.keys(m.series).filter((n) => m.series[n]!.step.length > 0);
  const xs = [...new Set(names.flatMap((n) => m.series[n]!.step))].sort((a, b) => a - b);
  const data: (number | null)[][] = [xs];
  for (const n of names) {
    const s = m.series[n]!;
    const at = new Map(s.step.map((st, k) => [st, s.value[k]!]));
    data.push(xs.map((x) => at.get(x) ?? null));
  }
  if (m.baseline) {
    names.push(`baseline ${m.baseline.node}`);
    data.push(xs.map(() => m.baseline!.score));
  }
  return { names, data };
}

export function MetricsChart({ view }: { view: ViewModel }) {
  const m = view.metrics.value;
  const host = useRef<HTMLDivElement>(null);
  const chart = useRef<{ plot: uPlot; key: string } | null>(null);
  const series = m ? aligned(m) : null;
  const points = series ? series.data[0]!.length : 0;

  useEffect(() => {
    const el = host.current;
    if (!el || !m || !series || points === 0) {
      chart.current?.plot.destroy();
      chart.current = null;
      return;
    }
    const key = series.names.join("|");
    if (chart.current?.key === key) {
      chart.current.plot.setData(series.data as uPlot.AlignedData);
      return;
    }
    chart.current?.plot.destroy();
    const opts: uPlot.Options = {
      width: Math.max(280, el.clientWidth),
      height: HEIGHT,
      scales: { x: { time: false } },
      axes: [{ label: "step" }, { label: m.metric }],
      series: [
        { label: "step" },
        ...series.names.map((name, k): uPlot.Series =>
          name.startsWith("baseline")
            ? { label: name, stroke: "#64748b", dash: [6, 4], width: 1.5, points: { show: false } }
            : { label: name, stroke: SERIES_COLORS[k % SERIES_COLORS.length], width: 2, spanGaps: true }
        ),
      ],
    };
    chart.current = { plot: new uPlot(opts, series.data as uPlot.AlignedData, el), key };
  });
  useEffect(() => () => chart.current?.plot.destroy(), []);

  const longs = m ? Object.keys(m.series) : [];
  return (
    <div class="metrics">
      {!longs.length && <p class="quiet">This plan has no long node, so there is no curve to draw.</p>}
      {longs.length > 0 && points === 0 && <p class="quiet">No metric points yet.</p>}
      <div ref={host} class="chart" data-points={points} />
    </div>
  );
}
