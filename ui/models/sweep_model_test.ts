import { deepEqual, equal, ok } from "node:assert/strict";
import { fold } from "../../src/model/reduce.ts";
import type { Incident } from "../../src/model/state.ts";
import { parseReplay } from "../../src/record/replay.ts";
import { metricsOf } from "../../src/server/metrics.ts";
import { sweepCharts } from "./sweep_model.ts";

const GOLDEN = new URL("../../tests/golden/sweep/", import.meta.url).pathname;
const lines = parseReplay(Deno.readTextFileSync(`${GOLDEN}replay.jsonl`)).lines;
const incidents: Incident[] = Deno.readTextFileSync(`${GOLDEN}incidents.jsonl`).split("\n").filter(Boolean)
  .map((l) => JSON.parse(l));

Deno.test("sweepCharts() puts every configuration's curve on one step axis with the rungs, cuts and winner", () => {
  const state = fold(lines);
  const [chart, more] = sweepCharts(state, metricsOf(state, lines), incidents);
  equal(more, undefined, "one chart per sweep");
  equal(chart!.sweep, "N4");
  deepEqual(chart!.rungs, [6, 18]);
  equal(chart!.curves.length, 9);
  equal(chart!.data.length, 10, "x plus one series per configuration");
  for (const ys of chart!.data) equal(ys.length, chart!.data[0]!.length);
  const kills = incidents.filter((i) => i.type === "SUPERSEDED_KILL");
  equal(chart!.cuts.length, kills.length);
  for (const cut of chart!.cuts) {
    const k = chart!.curves.findIndex((c) => c.node === cut.node) + 1;
    equal(
      chart!.data[k]![chart!.data[0]!.indexOf(cut.step)],
      cut.value,
      `${cut.node} is marked on its curve`,
    );
    equal(chart!.curves[k - 1]!.status, "superseded");
  }
  const verdict = lines.flatMap((l) => l.events).find((e) => e.e === "verdict");
  equal(chart!.winner, verdict?.e === "verdict" ? verdict.detail.method : "?");
  equal(chart!.baseline, state.nodes.N3!.manifest!.score);
  ok(chart!.curves[0]!.label.includes("lr="), chart!.curves[0]!.label);
});

Deno.test("sweepCharts() at a cursor before any training has curves without points and no winner", () => {
  const early = lines.slice(0, 3);
  const state = fold(early);
  const [chart] = sweepCharts(state, metricsOf(state, early), []);
  deepEqual(chart!.data, [[], [], [], [], [], [], [], [], [], []]);
  equal(chart!.winner, null);
  deepEqual(chart!.cuts, []);
});

Deno.test("sweepCharts() draws nothing for a plan without a sweep", () => {
  const state = fold(lines);
  deepEqual(
    sweepCharts({ ...state, plan: { ...state.plan, sweeps: undefined } }, metricsOf(state, lines), []),
    [],
  );
});
