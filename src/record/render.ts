/**
 * The one report renderer both modes write through: a report's title line, its section layout and its
 * tables. The graph path's anytime report (report.ts) and tree mode's (tree/report.ts) differ in their
 * bodies only; what they share — this layout, the black box section (incident_section.ts), the LLM-use
 * sections (usage_section.ts), the headline (headline.ts) and markdown escaping (md_escape.ts) — is written
 * once, so a fix to it is made once.
 *
 * @module
 */
import { mdInline } from "./md_escape.ts";

/** A report as markdown: `# title — scenario`, a blank line, then the blocks in order, newline-terminated. */
export function renderDocument(
  title: string,
  scenario: string,
  blocks: readonly (readonly string[])[],
): string {
  return [`# ${title} — ${mdInline(scenario)}`, "", ...blocks.flat()].join("\n") + "\n";
}

/** A section's heading and the blank line under it. */
export function heading(title: string): string[] {
  return [`## ${title}`, ""];
}

/** A `## title` section: the heading, a blank line, the body, a blank line. */
export function section(title: string, body: readonly string[]): string[] {
  return [...heading(title), ...body, ""];
}

/** A markdown table: the header row, its rule, and one row per entry; cells are already escaped. */
export function table(cols: readonly string[], rows: readonly (readonly string[])[]): string[] {
  return [tableRow(cols), `|${cols.map(() => "---").join("|")}|`, ...rows.map(tableRow)];
}

/** One table row; an empty cell is one space wide. */
export function tableRow(cells: readonly string[]): string {
  return `|${cells.map((c) => (c === "" ? " " : ` ${c} `)).join("|")}|`;
}
