/**
 * Numeric CSV tables: the one parser every real worker and `arrow run --data` use, so a file the command
 * line accepts is a file the workers read the same way. Errors name the file and the 1-based line.
 *
 * @module
 */

export interface Table {
  columns: string[];
  /** One array of numbers per data row, in file order. */
  rows: number[][];
}

/** A problem in a CSV file, at a line (0 when it concerns the whole file). */
export class CsvError extends Error {
  constructor(readonly file: string, readonly line: number, readonly reason: string) {
    super(line > 0 ? `${file}:${line}: ${reason}` : `${file}: ${reason}`);
    this.name = "CsvError";
  }
}

/** A cell or column name quoted for a message, control characters shown as escapes, never raw. */
// deno-lint-ignore no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function q(s: string): string {
  return `"${s.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}"`;
}

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Splits one line into cells; a cell may be "quoted" (with "" for a quote), no newline inside. */
function cells(line: string, file: string, lineNo: number): string[] {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    while (line[i] === " ") i++;
    if (line[i] === '"') {
      let v = "";
      i++;
      for (;;) {
        if (i >= line.length) throw new CsvError(file, lineNo, "unterminated quoted cell");
        if (line[i] === '"' && line[i + 1] === '"') [v, i] = [v + '"', i + 2];
        else if (line[i] === '"') break;
        else v += line[i++];
      }
      i++;
      while (line[i] === " ") i++;
      if (i < line.length && line[i] !== ",") throw new CsvError(file, lineNo, "text after a quoted cell");
      out.push(v);
    } else {
      const end = line.indexOf(",", i);
      out.push(line.slice(i, end < 0 ? line.length : end).trim());
      i = end < 0 ? line.length : end;
    }
    if (i >= line.length) return out;
    i++;
  }
}

/** Parses a numeric CSV with a header line. Every cell must be a finite decimal number. */
export function parseCsv(text: string, file: string): Table {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  while (lines.length && lines.at(-1)!.trim() === "") lines.pop();
  if (!lines.length) {
    throw new CsvError(file, 1, "the file is empty (expected a header line, then data rows)");
  }
  const columns = cells(lines[0]!, file, 1);
  const seen = new Set<string>();
  columns.forEach((c, j) => {
    if (!c) throw new CsvError(file, 1, `column ${j + 1} of the header has no name`);
    if (seen.has(c)) throw new CsvError(file, 1, `column ${q(c)} appears twice in the header`);
    seen.add(c);
  });
  if (lines.length === 1) throw new CsvError(file, 2, "no data rows after the header");
  const rows: number[][] = [];
  for (let k = 1; k < lines.length; k++) {
    const lineNo = k + 1;
    if (lines[k]!.trim() === "") {
      throw new CsvError(file, lineNo, `empty line (expected ${columns.length} cells)`);
    }
    const row = cells(lines[k]!, file, lineNo);
    if (row.length !== columns.length) {
      throw new CsvError(file, lineNo, `${row.length} cells, but the header has ${columns.length} columns`);
    }
    rows.push(row.map((cell, j) => {
      if (!NUMBER.test(cell)) {
        const shown = cell === "" ? "an empty cell" : q(cell.length > 40 ? cell.slice(0, 40) + "…" : cell);
        throw new CsvError(file, lineNo, `column ${q(columns[j]!)} holds ${shown}, not a number`);
      }
      const v = Number(cell);
      if (!Number.isFinite(v)) {
        throw new CsvError(
          file,
          lineNo,
          `column ${q(columns[j]!)} holds ${q(cell.slice(0, 40))}, out of range`,
        );
      }
      return v;
    }));
  }
  return { columns, rows };
}
