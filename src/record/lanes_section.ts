/**
 * The report's "Lanes bound read-only" section, for both modes: every lane a node's sandbox left a read-only
 * bind (too large to copy or shadow), by node and attempt, with the limit it is past — so a task-graph run's
 * report and a tree run's say the same thing about where a write would be refused rather than seen.
 *
 * @module
 */
import type { LaneRefusal } from "../model/state.ts";
import { mdInline } from "./md_escape.ts";
import { section, table } from "./render.ts";

const cell = (s: unknown) => mdInline(String(s ?? "—"), { max: 200 });

/** The section over `nodes` (id and recorded lanes, in report order); nothing when no node has a lane. */
export function lanesSection(nodes: readonly { id: string; refused?: readonly LaneRefusal[] }[]): string[] {
  const rows = nodes.flatMap(({ id, refused }) => (refused ?? []).map((r) => ({ id, ...r })));
  if (!rows.length) return [];
  return section("Lanes bound read-only", [
    "A write there is refused rather than caught in a shadow; it is on the record only when the program's " +
    "own error names the path.",
    "",
    ...table(
      ["node", "attempt", "by", "lane", "why"],
      rows.map((r) => [mdInline(r.id), String(r.attempt), r.by, cell(r.path), cell(r.why)]),
    ),
  ]);
}
