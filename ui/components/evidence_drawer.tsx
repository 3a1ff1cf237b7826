/// <reference lib="dom" />
/**
 * The evidence drawer: everything an incident recorded, so a person can check the call without rerunning
 * anything. Values are shown as JSON text, never interpreted.
 *
 * @module
 */
import { narrate } from "../../src/record/narrate.ts";
import { LADDER_LOOK } from "../lib/palette.ts";
import type { ViewModel } from "../models/view_model.ts";

const show = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v, null, 2));

/** The Slurm job a crash's evidence names (Slurm runtime only), as one line of text. */
function jobOf(evidence: unknown): string | null {
  const crash = (evidence as { crash?: Record<string, unknown> } | null)?.crash;
  if (!crash || !("job_id" in crash)) return null;
  const id = crash.job_id === null ? "not submitted" : `job ${String(crash.job_id)}`;
  return `${id}: ${String(crash.state ?? "?")}${crash.reason ? ` (${String(crash.reason)})` : ""}`;
}

export function EvidenceDrawer({ view }: { view: ViewModel }) {
  const p = view.opened.value;
  if (!p) return null;
  const i = p.incident;
  const look = LADDER_LOOK[i.ladder];
  const job = jobOf(i.evidence);
  return (
    <aside class="drawer" aria-label="Incident evidence" data-incident-type={i.type}>
      <header>
        <h3>
          {i.type} <span class="rung" style={{ background: look.fill, color: look.ink }}>{look.label}</span>
        </h3>
        <button type="button" class="close" aria-label="Close evidence" onClick={() => view.select(null)}>
          ×
        </button>
      </header>
      <p class="sentence">{narrate(i)}</p>
      <dl class="facts">
        <dt>node</dt>
        <dd>{i.node}</dd>
        <dt>tick</dt>
        <dd>{i.tick}</dd>
        <dt>laps</dt>
        <dd>{i.laps}</dd>
        <dt>tokens</dt>
        <dd>{i.tokens}</dd>
        {job && [<dt key="job-k">Slurm</dt>, <dd key="job-v">{job}</dd>]}
      </dl>
      <h4>Evidence</h4>
      <dl class="evidence">
        {Object.entries(i.evidence).map(([k, v]) => [
          <dt key={`k-${k}`}>{k}</dt>,
          <dd key={`v-${k}`}>
            <pre>{show(v)}</pre>
          </dd>,
        ])}
      </dl>
    </aside>
  );
}
