/**
 * Table → CSV text that `readTable` reads back to the same values: a missing cell is empty, numbers print in
 * JavaScript's shortest round-trip form, booleans in the file's own words (`yes`/`no`; else `true`/`false`), and a cell is quoted (quotes doubled)
 * when it holds a comma, quote, line break or edge space; a row that is one missing cell is `""` (a blank line
 * would be skipped). Used to hand an executor only the rows it may see.
 *
 * @module
 */
import { cellValue, type Table } from "./table.ts";

function quote(s: string): string {
  return /[",\r\n]|^\s|\s$/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** CSV text of `rows` of `table` (all rows by default), header first, LF line ends. */
export function writeCsv(table: Table, rows?: ArrayLike<number>): string {
  const n = rows ? rows.length : table.nRows;
  const lines = [table.columns.map((c) => quote(c.name)).join(",")];
  for (let i = 0; i < n; i++) {
    const r = rows ? rows[i]! : i;
    const line = table.columns.map((c) => {
      const v = cellValue(c, r);
      if (v === null) return "";
      return quote(c.kind === "boolean" && c.labels ? c.labels[v ? 1 : 0] : String(v));
    }).join(",");
    // A row of one missing cell would be a blank line, which a reader skips: it is written as `""`.
    lines.push(line === "" ? '""' : line);
  }
  return lines.join("\n") + "\n";
}
