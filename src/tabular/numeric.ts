/**
 * A CSV of numbers only, as the real path's built-in workers (OLS, GBDT, the data node) and `arrow run --data`
 * read it: the cells come from the one CSV tokenizer both modes share (csv.ts: quotes, a BOM, CRLF, blank
 * lines, the delimiter), and each must then be a finite decimal number by the same rule the typed reader
 * uses (infer.ts). A cell that is not is a `CsvError` at its line, so `arrow run` and its workers refuse the
 * same files with the same words. Imported by worker programs by relative path: it imports nothing but its
 * two neighbours.
 *
 * @module
 */
import { CsvError, parseCsvText, shown } from "./csv.ts";
import { decimalComma, isMissingText, parseNumber } from "./infer.ts";

export interface NumericTable {
  columns: string[];
  /** One array of numbers per data row, in file order. */
  rows: number[][];
}

/** Parses a numeric CSV with a header line; `delimiter` is one character (default ","). */
export function parseNumericCsv(text: string, file: string, delimiter = ","): NumericTable {
  const raw = parseCsvText(text, file, { delimiter });
  // Where commas do not separate the columns, a decimal comma (0,5) is a number, as the typed reader reads it.
  const comma = (raw.declared ?? delimiter) !== ",";
  const rows = raw.rows.map((cells, i) =>
    cells.map((cell, j) => {
      const pointed = comma ? decimalComma(cell) : null;
      const v = pointed !== null ? Number(pointed) : parseNumber(cell);
      if (Number.isFinite(v)) return v;
      const missing = isMissingText(cell);
      const what = cell.trim() === "" ? "an empty cell" : shown(cell);
      // A missing marker (NA, ?, …) is no typo: these workers need every cell, and the message says so.
      const why = missing
        ? "a missing value (the built-in workers need every cell)"
        : Number.isNaN(v)
        ? "not a number"
        : "out of range";
      throw new CsvError(file, raw.lines[i]!, `column ${shown(raw.header[j]!)} holds ${what}, ${why}`);
    })
  );
  return { columns: raw.header, rows };
}
