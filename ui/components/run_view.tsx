/// <reference lib="dom" />
/**
 * One run's dashboard: header, narration, the graph with the player under it, the incident stream with its
 * evidence drawer, metric curves and the anytime report. Presentation mode (`?stage=1`) puts the narration
 * first in large type.
 *
 * @module
 */
import type { PlayerModel } from "../models/player_model.ts";
import type { RunModel } from "../models/run_model.ts";
import type { ViewModel } from "../models/view_model.ts";
import { EvidenceDrawer } from "./evidence_drawer.tsx";
import { GraphView } from "./graph_view.tsx";
import { IncidentList } from "./incident_list.tsx";
import { Legend } from "./legend.tsx";
import { MetricsChart } from "./metrics_chart.tsx";
import { SweepChart } from "./sweep_chart.tsx";
import { NarrationBar } from "./narration_bar.tsx";
import { PlayerBar } from "./player_bar.tsx";
import { ReportView } from "./report_view.tsx";
import { LlmUse } from "./llm_use.tsx";

const PHASE_LABEL = {
  loading: "loading",
  live: "live",
  stopped: "stopped",
  finished: "finished",
  missing: "?",
};

export function RunView(
  { run, player, view, stage }: { run: RunModel; player: PlayerModel; view: ViewModel; stage: boolean },
) {
  const phase = run.phase.value;
  if (phase === "missing") {
    return (
      <main class="run-page">
        <p class="error">Cannot open this run: {run.error.value}</p>
        <a href="/">All runs</a>
      </main>
    );
  }
  const state = view.state.value;
  const verdict = state?.verdict;
  const narration = <NarrationBar view={view} />;
  return (
    <main
      class={`run-page${stage ? " stage" : ""}`}
      data-phase={phase}
      data-connected={String(run.connected.value)}
    >
      {stage && narration}
      <header class="top">
        <a class="home" href={stage ? "/?stage=1" : "/"}>← runs</a>
        <h1>
          {state?.scenario ?? "…"} <small>{run.summary.value?.id}</small>
        </h1>
        <span class={`phase phase-${phase}`}>
          {PHASE_LABEL[phase]}
          {phase === "live" && !run.connected.value ? " (reconnecting)" : ""}
        </span>
        <span class={`verdict${verdict ? " final" : ""}`} data-verdict={verdict ?? ""}>
          {verdict ?? "no verdict yet"}
        </span>
        <LlmUse
          u={view.llm.value}
          title="LLM use so far: calls from the usage files, tokens, cost as the API reported it"
        />
        {run.summary.value?.mode === "tree" && (
          <a class="tree-link" href={`/?run=${encodeURIComponent(run.summary.value.id)}&view=tree`}>
            tree view
          </a>
        )}
      </header>
      {run.tampered.value && (
        <p class="error tampered" role="alert">
          This black box fails its integrity check: replay.jsonl{" "}
          {run.tampered.value}. Nothing shown here can be trusted; see <code>arrow replay --check</code>.
        </p>
      )}
      {state && <p class="question">{state.plan.question}</p>}
      {!stage && narration}
      <section class="graph-panel" aria-label="Task graph">
        <GraphView view={view} />
        <PlayerBar player={player} />
        <Legend />
      </section>
      <section class="incident-panel" aria-label="Incidents">
        <h2>Incidents</h2>
        <EvidenceDrawer view={view} />
        <IncidentList view={view} />
      </section>
      <section class="metrics-panel" aria-label="Metric curves">
        <h2>Metric curves</h2>
        <MetricsChart view={view} />
        <SweepChart view={view} />
      </section>
      <section class="report-panel" aria-label="Anytime report">
        <h2>Anytime report</h2>
        <ReportView view={view} />
      </section>
    </main>
  );
}
