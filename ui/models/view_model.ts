/**
 * Everything the run page shows, derived from the run and the player's cursor: the state at that line, the
 * incidents so far (newest first), the narration, metric curves and the anytime report as they stood then,
 * plus which incident's evidence is open.
 *
 * @module
 */
import { action, computed, createModel, signal } from "@preact/signals";
import type { Plan } from "../../src/graph/types.ts";
import type { RunState } from "../../src/model/state.ts";
import { renderReport } from "../../src/record/report.ts";
import { usageTotals } from "../../src/record/usage_section.ts";
import { metricsOf } from "../../src/server/metrics.ts";
import { layoutPlan } from "../lib/layout.ts";
import { sentencesUpTo } from "../lib/narration.ts";
import type { PlayerModel } from "./player_model.ts";
import type { RunModel } from "./run_model.ts";

/** How many recent sentences the narration bar keeps. */
const NARRATION = 4;

export const ViewModel = createModel((run: RunModel, player: PlayerModel) => {
  const plan = computed((): Plan | null => {
    const init = run.lines.value[0]?.events[0];
    return init?.e === "init" ? init.state.plan : null;
  });
  const layout = computed(() => (plan.value ? layoutPlan(plan.value) : null));
  const state = computed((): RunState | null =>
    run.lines.value.length ? run.stateAt(player.cursor.value) : null
  );
  const placed = computed(() => (run.lines.value.length ? run.incidentsUpTo(player.cursor.value) : []));
  const incidents = computed(() => placed.value.slice().reverse());
  const narration = computed(() => sentencesUpTo(run.lines.value, player.cursor.value, NARRATION));
  const metrics = computed(() =>
    state.value ? metricsOf(state.value, run.lines.value.slice(0, player.cursor.value + 1)) : null
  );
  const report = computed(() =>
    state.value
      ? renderReport(state.value, placed.value.map((p) => p.incident), run.usage.value ?? undefined)
      : ""
  );
  /** LLM calls, tokens and cost so far (the header's live figure); null when no node used any. */
  const llm = computed(() => (state.value ? usageTotals(state.value, run.usage.value ?? undefined) : null));
  const selected = signal<number | null>(null);
  const opened = computed(() => placed.value.find((p) => p.seq === selected.value) ?? null);

  return {
    plan,
    layout,
    state,
    incidents,
    narration,
    metrics,
    report,
    llm,
    selected,
    opened,
    select: action((seq: number | null) => {
      selected.value = seq;
    }),
  };
});

export type ViewModel = InstanceType<typeof ViewModel>;
