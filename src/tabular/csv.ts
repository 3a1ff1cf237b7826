/**
 * The CSV tokenizer: RFC 4180 cells (quoted cells may hold delimiters, doubled quotes and newlines), a BOM,
 * CRLF/LF/CR line ends, a header line, and hard size limits — every input either becomes cells or a
 * `CsvError` naming the file and the 1-based line where the offending record starts. One forward pass, so
 * no input can make it hang.
 *
 * Leniencies, on purpose (they are what spreadsheets export): spaces around an unquoted cell are trimmed, a
 * quote inside an unquoted cell is kept as a character, blank lines are skipped. **Row names**, as R's
 * `write.csv` and pandas' `to_csv` write them by default, are set aside (`rowNames`), not read as a column:
 * a first column whose header cell is empty (`"",a,b`), or a header one cell shorter than every row
 * (`write.table`'s form) — when every one of those first cells differs (a label per row carries nothing to
 * learn); a first column that repeats is refused as a column without a name.
 *
 * @module
 */

/** A CSV that cannot be read, at a line (0 when it concerns the whole file). Callers catch this class. */
export class CsvError extends Error {
  constructor(readonly file: string, readonly line: number, readonly reason: string) {
    super(`${line > 0 ? `${file}:${line}` : file}: Cannot read the CSV: ${reason}`);
    this.name = "CsvError";
  }
}

/** Bounds on untrusted input; exceeding one is a `CsvError`, never an out-of-memory crash. */
export interface CsvLimits {
  /** Characters of text (default 256 Mi). */
  maxChars: number;
  /** Columns in the header (default 4096). */
  maxColumns: number;
  /** Data rows (default 5 million). */
  maxRows: number;
  /** Characters in one cell (default 1 Mi). */
  maxCellChars: number;
  /** Cells in all data rows together (default 50 million), which bounds the memory the cells take. */
  maxCells: number;
}

export const DEFAULT_LIMITS: CsvLimits = {
  maxChars: 256 * 1024 * 1024,
  maxColumns: 4096,
  maxRows: 5_000_000,
  maxCellChars: 1024 * 1024,
  maxCells: 50_000_000,
};

/** Cells of a CSV: the header names, then rows of exactly as many cells, each with its first line. */
export interface RawCsv {
  header: string[];
  rows: string[][];
  /** The 1-based line where each data row starts (rows may span lines inside quotes). */
  lines: number[];
  /** A first column of row names set aside (module doc): how it was written, and the names, one a row. */
  rowNames?: { form: "unnamed" | "headerless"; labels: string[] };
  /** The delimiter a first line `sep=;` declared (as Excel reads and some exporters write), when there was one:
   * that line is no header, and its delimiter is the one read with. */
  declared?: string;
}

/** Excel's delimiter line: `sep=` and one character, alone on the file's first line. */
const SEP_LINE = /^sep=([^\r\n"])\r?\n/;

/**
 * The delimiter to read `text` with: the one a first line `sep=X` declares (and where the header then
 * starts), else `given` (default `,`). A declared delimiter other than a `given` one that is not the
 * default comma is a CsvError at line 1: the file and the caller disagree.
 */
export function delimiterOf(
  text: string,
  file: string,
  given: string | undefined,
): { delimiter: string; declared: boolean; skip: number } {
  const at = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const m = SEP_LINE.exec(text.slice(at, at + 16));
  if (!m) return { delimiter: given ?? ",", declared: false, skip: 0 };
  if (given !== undefined && given !== "," && given !== m[1]) {
    throw new CsvError(file, 1, `the file declares sep=${m[1]}, but it was to be read with ${shown(given)}`);
  }
  return { delimiter: m[1]!, declared: true, skip: m[0].length };
}

const QUOTE = 34, CR = 13, LF = 10, SPACE = 32, TAB = 9;

/** Shows untrusted text in a message: quoted, escaped to one line, at most 40 characters. */
export function shown(s: string): string {
  // JSON.stringify escapes quotes and the C0 controls; C1 controls, line separators and bidi overrides it
  // leaves, so they are escaped too: the text cannot break or reorder the message.
  return JSON.stringify(s.length > 40 ? s.slice(0, 40) + "…" : s).replace(
    /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** Splits CSV text into a header and rows; `delimiter` is one character (default ","). */
export function parseCsvText(
  text: string,
  file = "<input>",
  options: { delimiter?: string; limits?: Partial<CsvLimits> } = {},
): RawCsv {
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const sep = delimiterOf(text, file, options.delimiter);
  const delimiter = sep.delimiter;
  if (delimiter.length !== 1 || delimiter === '"' || delimiter === "\n" || delimiter === "\r") {
    throw new RangeError(`Cannot read a CSV with delimiter ${shown(delimiter)}: use one other character`);
  }
  const DELIM = delimiter.charCodeAt(0);
  const isPad = (c: number) => (c === SPACE || c === TAB) && c !== DELIM;
  if (text.length > limits.maxChars) {
    throw new CsvError(
      file,
      0,
      `it has ${text.length} characters, more than the limit of ${limits.maxChars}`,
    );
  }
  const n = text.length;
  let i = (text.charCodeAt(0) === 0xfeff ? 1 : 0) + sep.skip;
  let line = sep.declared ? 2 : 1;
  let header: string[] | null = null;
  const rows: string[][] = [];
  const lines: number[] = [];
  // Row names (module doc): the header's first cell empty, or every row one cell longer than the header.
  let names: "unnamed" | "headerless" | null = null;
  const labels: string[] = [];

  while (i < n) {
    const start = line;
    const cells: string[] = [];
    let sawQuote = false;
    for (;;) {
      let j = i;
      while (j < n && isPad(text.charCodeAt(j))) j++;
      let cell: string;
      if (j < n && text.charCodeAt(j) === QUOTE) {
        sawQuote = true;
        let k = j + 1;
        cell = "";
        for (;;) {
          const q = text.indexOf('"', k);
          if (q < 0) throw new CsvError(file, line, "a quoted cell opens on this line and never closes");
          cell += text.slice(k, q);
          if (cell.length > limits.maxCellChars) {
            throw new CsvError(file, start, `a cell is longer than ${limits.maxCellChars} characters`);
          }
          if (text.charCodeAt(q + 1) === QUOTE) {
            cell += '"';
            k = q + 2;
          } else {
            k = q + 1;
            break;
          }
        }
        for (let p = j; p < k; p++) {
          const c = text.charCodeAt(p);
          if (c === LF || (c === CR && text.charCodeAt(p + 1) !== LF)) line++;
        }
        cell = cell.replace(/\r\n?/g, "\n");
        while (k < n && isPad(text.charCodeAt(k))) k++;
        const after = k < n ? text.charCodeAt(k) : DELIM;
        if (after !== DELIM && after !== LF && after !== CR) {
          throw new CsvError(
            file,
            line,
            `text ${shown(text.slice(k, k + 20).split(/[\r\n]/)[0]!)} follows a closing quote`,
          );
        }
        i = k;
      } else {
        let k = i;
        while (k < n) {
          const c = text.charCodeAt(k);
          if (c === DELIM || c === LF || c === CR) break;
          k++;
        }
        if (k - i > limits.maxCellChars) {
          throw new CsvError(file, start, `a cell is longer than ${limits.maxCellChars} characters`);
        }
        cell = text.slice(i, k).trim();
        i = k;
      }
      cells.push(cell);
      if (cells.length > limits.maxColumns) {
        throw new CsvError(file, start, `a row has more than ${limits.maxColumns} cells`);
      }
      if (i >= n) break;
      const c = text.charCodeAt(i);
      i++;
      if (c === DELIM) continue;
      if (c === CR && text.charCodeAt(i) === LF) i++;
      line++;
      break;
    }
    if (cells.length === 1 && cells[0] === "" && !sawQuote) continue;
    if (header === null) {
      if (cells.length > 1 && cells[0] === "") names = "unnamed";
      header = checkHeader(names ? cells.slice(1) : cells, file, start, names ? 1 : 0);
      continue;
    }
    // (A first row that only ends in a delimiter is a trailing comma, not a row name: it stays an error.)
    if (names === null && rows.length === 0 && cells.length === header.length + 1 && cells.at(-1) !== "") {
      names = "headerless";
    }
    if (names) {
      if (cells.length !== header.length + 1) {
        const n = header.length;
        const why = names === "unnamed"
          ? `the header has ${n + 1} (row names, then ${n} columns)`
          : `the first row (line ${lines[0]}) has ${
            n + 1
          }, one more than the header, read as row names; if ` +
            `that line has a cell too many, mend it there`;
        throw new CsvError(file, start, `this row has ${cells.length} cells, but ${why}`);
      }
      labels.push(cells.shift()!);
    } else if (cells.length !== header.length) {
      throw new CsvError(
        file,
        start,
        `this row has ${cells.length} cells, but the header has ${header.length} columns`,
      );
    }
    if (rows.length >= limits.maxRows) {
      throw new CsvError(file, start, `more than ${limits.maxRows} data rows`);
    }
    if ((rows.length + 1) * cells.length > limits.maxCells) {
      throw new CsvError(file, start, `more than ${limits.maxCells} cells in the data rows`);
    }
    rows.push(cells);
    lines.push(start);
  }
  if (header === null) throw new CsvError(file, 1, "the file is empty (expected a header line, then rows)");
  if (rows.length === 0) throw new CsvError(file, line, "there are no data rows after the header");
  const declared = sep.declared ? { declared: delimiter } : {};
  if (!names) return { header, rows, lines, ...declared };
  const seen = new Map<string, number>();
  labels.forEach((l, r) => {
    const before = seen.get(l);
    if (before !== undefined) {
      const what = names === "unnamed"
        ? "column 1 of the header has no name"
        : "the header has one name fewer than the rows";
      throw new CsvError(
        file,
        lines[r]!,
        `${what}, and that first column repeats ${shown(l)} (lines ${lines[before]} and ${
          lines[r]
        }), so it is ` +
          `no row names: name it in the header`,
      );
    }
    seen.set(l, r);
  });
  return { header, rows, lines, rowNames: { form: names, labels }, ...declared };
}

function checkHeader(cells: string[], file: string, line: number, offset: number): string[] {
  const seen = new Set<string>();
  cells.forEach((name, j) => {
    if (name === "") throw new CsvError(file, line, `column ${j + 1 + offset} of the header has no name`);
    if (seen.has(name)) throw new CsvError(file, line, `column ${shown(name)} appears twice in the header`);
    seen.add(name);
  });
  return cells;
}
