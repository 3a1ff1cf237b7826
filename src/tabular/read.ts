/**
 * CSV text or file → typed columnar table: tokenize (csv.ts), mark missing cells, infer each column's kind
 * (infer.ts) unless the caller forces it, build the columns. The file reader is the only I/O here and checks
 * the size before reading, so a huge file is refused without being loaded.
 *
 * @module
 */
import { CsvError, type CsvLimits, DEFAULT_LIMITS, parseCsvText, shown } from "./csv.ts";
import { buildColumn, inferKind, isMissingText } from "./infer.ts";
import type { ColumnKind, Table } from "./table.ts";

export interface ReadOptions {
  delimiter?: string;
  limits?: Partial<CsvLimits>;
  /** Force a kind for named columns (e.g. `{ Pclass: "categorical" }`). */
  types?: Record<string, ColumnKind>;
  /** Replace the missing-marker rule: cells equal (exactly, after trimming) to one of these are missing. */
  missing?: readonly string[];
}

/** Parses CSV text into a typed table; `file` names the source in errors. */
export function readTable(text: string, file = "<input>", options: ReadOptions = {}): Table {
  const raw = parseCsvText(text, file, options);
  const forced = options.types ?? {};
  for (const name of Object.keys(forced)) {
    if (!raw.header.includes(name)) {
      throw new CsvError(file, 1, `column ${shown(name)} is given a type, but the header has no such column`);
    }
  }
  const custom = options.missing ? new Set(options.missing) : null;
  const missing = custom ? (s: string) => custom.has(s.trim()) : isMissingText;
  const columns = raw.header.map((name, j) => {
    const cells = raw.rows.map((r) => (missing(r[j]!) ? null : r[j]!));
    const kind = forced[name] ?? inferKind(cells);
    return buildColumn(name, kind, cells, (i) => ({ file, line: raw.lines[i]! }));
  });
  return { nRows: raw.rows.length, columns };
}

/** Reads and parses a CSV file; a missing or oversized file is a `CsvError` for that file. */
export function readCsvFile(path: string, options: ReadOptions = {}): Table {
  const maxChars = options.limits?.maxChars ?? DEFAULT_LIMITS.maxChars;
  let size: number;
  try {
    size = Deno.statSync(path).size;
  } catch (e) {
    throw new CsvError(path, 0, e instanceof Deno.errors.NotFound ? "no such file" : String(e));
  }
  if (size > maxChars * 4) throw new CsvError(path, 0, `it has ${size} bytes, more than the limit`);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(Deno.readFileSync(path));
  } catch (e) {
    const why = e instanceof TypeError ? "it is not valid UTF-8 text" : String(e);
    throw new CsvError(path, 0, why);
  }
  return readTable(text, path, options);
}
