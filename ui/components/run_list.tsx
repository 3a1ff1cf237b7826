/// <reference lib="dom" />
/**
 * The home page: every run in the runs directory, live ones first, each a link to its dashboard.
 *
 * @module
 */
import type { RunsModel } from "../models/runs_model.ts";

export function RunList({ runs, stage }: { runs: RunsModel; stage: boolean }) {
  const list = runs.runs.value;
  const err = runs.error.value;
  // A tree run opens in the tree view: the graph view would wait forever for task-graph ticks it never writes.
  const link = (r: { id: string; kind: string }) =>
    `/?run=${encodeURIComponent(r.id)}${r.kind === "tree" ? "&view=tree" : ""}${stage ? "&stage=1" : ""}`;
  const score = (r: { score: number | null; score_of: string | null }) =>
    r.score === null
      ? "—"
      : `${Number.isInteger(r.score) ? r.score : r.score.toFixed(4)}${r.score_of ? ` (${r.score_of})` : ""}`;
  return (
    <main class="runs-page">
      <header class="top">
        <h1>
          Arrow <small>AutoResearch Overwatch</small>
        </h1>
      </header>
      {err && <p class="error">Cannot list runs: {err}</p>}
      {list === null && !err && <p class="quiet">Loading runs…</p>}
      {list?.length === 0 && (
        <p class="quiet">
          No runs yet. Start one with <code>arrow run --scenario green</code>.
        </p>
      )}
      {list && list.length > 0 && (
        <table class="runs">
          <thead>
            <tr>
              <th>run</th>
              <th>scenario</th>
              <th>kind</th>
              <th>mode</th>
              <th>state</th>
              <th>verdict</th>
              <th>metric</th>
              <th>score</th>
              <th>ticks</th>
              <th>incidents</th>
            </tr>
          </thead>
          <tbody>
            {list.map((r) => (
              <tr key={r.id} data-run={r.id} data-phase={r.phase} data-kind={r.kind}>
                <td>
                  <a href={link(r)}>{r.id}</a>
                </td>
                <td>{r.scenario}</td>
                <td class="kind">{r.kind}</td>
                <td>{r.mode}</td>
                <td>
                  <span class={`phase phase-${r.phase}`}>{r.phase}</span>
                </td>
                <td>{r.verdict ?? "—"}</td>
                <td class="metric">{r.metric ?? "—"}</td>
                <td class="score">{score(r)}</td>
                <td>{r.tick}</td>
                <td>{r.incidents}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}
