import { deepEqual, equal } from "node:assert/strict";
import { renderDocument, section, table, tableRow } from "./render.ts";

Deno.test("renderDocument() puts the escaped scenario in the title and ends with one newline", () => {
  equal(
    renderDocument("Tree run", "a*b", [["x"], section("S", ["y"])]),
    "# Tree run — a\\*b\n\nx\n## S\n\ny\n\n",
  );
});

Deno.test("table() writes the header, its rule and the rows; an empty cell is one space wide", () => {
  deepEqual(table(["", "dev"], [["start", "0.5"]]), ["| | dev |", "|---|---|", "| start | 0.5 |"]);
  equal(tableRow(["—", "", ""]), "| — | | |");
});
