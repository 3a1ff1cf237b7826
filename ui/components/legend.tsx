/// <reference lib="dom" />
/**
 * The key to the graph: a chip per status, a shape per node kind, a line per edge kind, a colour per rung.
 *
 * @module
 */
import type { EdgeKind, NodeKind } from "../../src/graph/types.ts";
import type { Ladder, Status } from "../../src/model/state.ts";
import { EDGE_DASH, LADDER_LOOK, STATUS_LOOK } from "../lib/palette.ts";

const KINDS: [NodeKind, string][] = [["fast", "fast"], ["long", "long"], ["reactive", "reactive"]];

function KindIcon({ kind }: { kind: NodeKind }) {
  const p = { fill: "#e2e8f0", stroke: "#1e293b", "stroke-width": 1.2 };
  return (
    <svg class="icon" viewBox="0 0 30 16" aria-hidden="true">
      {kind === "fast" && <rect {...p} x="1" y="1" width="28" height="14" rx="2" />}
      {kind === "long" && <rect {...p} x="1" y="1" width="28" height="14" rx="7" />}
      {kind === "reactive" && <polygon {...p} points="5,1 25,1 29,8 25,15 5,15 1,8" />}
    </svg>
  );
}

export function Legend() {
  return (
    <details class="legend" open>
      <summary>Legend</summary>
      <ul class="chips">
        {(Object.keys(STATUS_LOOK) as Status[]).map((s) => (
          <li key={s}>
            <span class="chip" style={{ background: STATUS_LOOK[s].fill }} />
            {STATUS_LOOK[s].label}
          </li>
        ))}
      </ul>
      <ul class="chips">
        {KINDS.map(([k, label]) => (
          <li key={k}>
            <KindIcon kind={k} />
            {label}
          </li>
        ))}
        {(Object.keys(EDGE_DASH) as EdgeKind[]).map((k) => (
          <li key={k}>
            <svg class="icon" viewBox="0 0 40 16" aria-hidden="true">
              <line
                x1="1"
                y1="8"
                x2="39"
                y2="8"
                stroke="#334155"
                stroke-width="2"
                stroke-dasharray={EDGE_DASH[k]}
              />
            </svg>
            {k.replace("_", "-")}
          </li>
        ))}
      </ul>
      <ul class="chips">
        {(Object.keys(LADDER_LOOK) as Ladder[]).map((l) => (
          <li key={l}>
            <span class="chip" style={{ background: LADDER_LOOK[l].fill }} />
            {LADDER_LOOK[l].label}
          </li>
        ))}
      </ul>
    </details>
  );
}
