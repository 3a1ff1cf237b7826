/**
 * The report's black box section, for both modes: every incident as one line — its tick, type (or graph
 * surgery), node, rung and the narration the dashboard shows — so a task-graph run's report and a tree run's
 * read an incident the same way.
 *
 * @module
 */
import { isSurgery } from "../model/evidence.ts";
import type { Incident } from "../model/state.ts";
import { mdInline } from "./md_escape.ts";
import { narrate } from "./narrate.ts";
import { heading } from "./render.ts";

export function blackBoxSection(incidents: readonly Incident[]): string[] {
  const lines = heading(`Black box (${incidents.length} incident${incidents.length === 1 ? "" : "s"})`);
  for (const i of incidents) {
    const label = isSurgery(i.evidence) ? "graph surgery" : i.type;
    lines.push(
      `- tick ${i.tick} ${label} on ${mdInline(i.node)} (${i.ladder}): ${mdInline(narrate(i), { max: 300 })}`,
    );
  }
  return lines;
}
