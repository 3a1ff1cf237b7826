/// <reference lib="dom" />
/**
 * The incident stream, newest first, each coloured by its ladder rung. Clicking one opens its evidence.
 * Incident text comes from agents' worlds (paths, notes), so it is only ever rendered as text.
 *
 * @module
 */
import { narrate } from "../../src/record/narrate.ts";
import { LADDER_LOOK } from "../lib/palette.ts";
import type { ViewModel } from "../models/view_model.ts";

export function IncidentList({ view }: { view: ViewModel }) {
  const list = view.incidents.value;
  const open = view.selected.value;
  if (!list.length) return <p class="quiet">No incidents so far: overwatch has not had to intervene.</p>;
  return (
    <ol class="incidents" aria-label="Incidents, newest first">
      {list.map(({ seq, incident: i }) => {
        const look = LADDER_LOOK[i.ladder];
        return (
          <li
            key={seq}
            class={`incident${open === seq ? " open" : ""}`}
            data-incident-type={i.type}
            data-node={i.node}
            data-ladder={i.ladder}
            style={{ borderLeftColor: look.fill }}
          >
            <button type="button" onClick={() => view.select(open === seq ? null : seq)}>
              <span class="itick">t{i.tick}</span>
              <span class="itype">{i.type}</span>
              <span class="rung" style={{ background: look.fill, color: look.ink }}>{look.label}</span>
              <span class="itext">{narrate(i)}</span>
            </button>
          </li>
        );
      })}
    </ol>
  );
}
