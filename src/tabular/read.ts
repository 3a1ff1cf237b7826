/**
 * CSV text or file → typed columnar table: tokenize (csv.ts), mark missing cells, infer each column's kind
 * (infer.ts) unless the caller forces it, build the columns. The file reader is the only I/O here and checks
 * the size before reading, so a huge file is refused without being loaded.
 *
 * @module
 */
import { CsvError, type CsvLimits, DEFAULT_LIMITS, parseCsvText, type RawCsv, shown } from "./csv.ts";
import {
  buildColumn,
  decimalComma,
  inferKind,
  isFormatted,
  isMissingText,
  isStray,
  parseNumber,
} from "./infer.ts";
import type { ColumnKind, Table } from "./table.ts";

export interface ReadOptions {
  delimiter?: string;
  limits?: Partial<CsvLimits>;
  /** Force a kind for named columns (e.g. `{ Pclass: "categorical" }`). */
  types?: Record<string, ColumnKind>;
  /** Replace the missing-marker rule: cells equal (exactly, after trimming) to one of these are missing. */
  missing?: readonly string[];
  /**
   * A cell that is no number in a column forced numeric: an error at its line (default), or read as
   * missing and listed in the table's `strays`. (A column inferred numeric always reads its few strays as
   * missing: infer.ts STRAYS.)
   */
  strays?: "error" | "missing";
}

/** Cells of a numeric column that were no number and are read as missing. */
export interface Strays {
  column: string;
  count: number;
  /** The first few, with their file lines. */
  examples: { text: string; line: number }[];
}

/** Cells of a numeric column written as a spreadsheet formats numbers (`$1,200`, `12%`), read as numbers. */
export interface Formats {
  column: string;
  count: number;
  /** The first one, with its file line and the number it is read as. */
  example: { text: string; line: number; value: number };
}

/** Numeric columns written with decimal commas (`0,538`), read with decimal points. */
export interface Decimals {
  columns: string[];
  /** Cells read so. */
  count: number;
  /** The first one, with its file line and the number it is read as. */
  example: { text: string; line: number; value: number };
}

/** A table read from CSV, with the stray cells its numeric columns read as missing, the formatted numbers
 * they read as numbers, the decimal commas read as points, and the row names set aside (csv.ts). */
export type ReadTable = Table & {
  strays?: Strays[];
  formats?: Formats[];
  decimals?: Decimals;
  rowNames?: RawCsv["rowNames"];
  /** The delimiter the file's first line declared (`sep=;`). */
  declared?: string;
};

/** How a note shows decimal commas: `2 columns ("crim", "nox") hold numbers with a decimal comma …`. */
export function decimalsNote(d: Decimals): string {
  const cols = d.columns.slice(0, 4).map(shown).join(", ") + (d.columns.length > 4 ? ", …" : "");
  const e = d.example;
  return `${d.columns.length === 1 ? "column" : `${d.columns.length} columns`} (${cols}) ${
    d.columns.length === 1 ? "holds" : "hold"
  } numbers written with a decimal comma, as a spreadsheet saves them with ; between columns: ${d.count} ` +
    `cell${d.count === 1 ? " is" : "s are"} read so (${shown(e.text)} at line ${e.line} is ${e.value})`;
}

/** How a note shows row names set aside: `the first column holds row names ("1" … "150", as R's write.csv
 * writes them): not read as a column`. */
export function rowNamesNote(r: NonNullable<RawCsv["rowNames"]>): string {
  const how = r.form === "unnamed"
    ? "its header cell is empty"
    : "the header has one name fewer than the rows";
  return `the first column holds row names (${shown(r.labels[0]!)} … ${
    shown(r.labels.at(-1)!)
  }; ${how}, as R's write.csv ` +
    `and pandas' to_csv write them): set aside, not learned from`;
}

/** How a note shows formatted numbers: `column "price" is numeric: 40 cells are formatted ("$1,200" at
 * line 2 is read as 1200) …`. */
export function formatsNote(f: Formats): string {
  const e = f.example;
  return `column ${shown(f.column)} is numeric: ${f.count} cell${
    f.count === 1 ? " is" : "s are"
  } formatted ` +
    `(${
      shown(e.text)
    } at line ${e.line} is read as ${e.value}): currency signs, thousands commas and % are ` +
    `dropped and a number in parentheses is negative`;
}

/** How a note shows strays: `column "x": 3 cells are no number ("inf" at line 5, …) and are read as missing`. */
export function straysNote(s: Strays): string {
  const ex = s.examples.map((e) => `${shown(e.text)} at line ${e.line}`).join(", ");
  const more = s.count > s.examples.length ? ", …" : "";
  return `column ${shown(s.column)} is numeric: ${s.count} cell${
    s.count === 1 ? " is" : "s are"
  } no number ` +
    `(${ex}${more}) and ${s.count === 1 ? "is" : "are"} read as missing`;
}

/** Parses CSV text into a typed table; `file` names the source in errors. */
export function readTable(text: string, file = "<input>", options: ReadOptions = {}): ReadTable {
  const raw = parseCsvText(text, file, options);
  const forced = options.types ?? {};
  for (const name of Object.keys(forced)) {
    if (!raw.header.includes(name)) {
      throw new CsvError(file, 1, `column ${shown(name)} is given a type, but the header has no such column`);
    }
  }
  const custom = options.missing ? new Set(options.missing) : null;
  const missing = custom ? (s: string) => custom.has(s.trim()) : isMissingText;
  const strays: Strays[] = [], formats: Formats[] = [];
  // Decimal commas can stand unquoted only where commas do not separate the columns.
  const commaDecimals = (raw.declared ?? options.delimiter ?? ",") !== ",";
  let decimals: Decimals | null = null;
  const columns = raw.header.map((name, j) => {
    let cells = raw.rows.map((r) => (missing(r[j]!) ? null : r[j]!));
    if (commaDecimals && (forced[name] ?? "numeric") === "numeric") {
      let count = 0, first = -1;
      const pointed = cells.map((c, i) => {
        const d = c === null ? null : decimalComma(c);
        if (d !== null) count++, first = first < 0 ? i : first;
        return d ?? c;
      });
      if (count && (forced[name] ?? inferKind(pointed)) === "numeric") {
        cells = pointed;
        const text = raw.rows[first]![j]!.trim();
        decimals ??= {
          columns: [],
          count: 0,
          example: { text, line: raw.lines[first]!, value: Number(pointed[first]) },
        };
        decimals.columns.push(name);
        decimals.count += count;
      }
    }
    const kind = forced[name] ?? inferKind(cells);
    if (kind === "numeric" && (!forced[name] || options.strays === "missing")) {
      const at: number[] = [];
      cells = cells.map((c, i) => c !== null && isStray(c) ? (at.push(i), null) : c);
      if (at.length) {
        const examples = at.slice(0, 3).map((i) => ({ text: raw.rows[i]![j]!.trim(), line: raw.lines[i]! }));
        strays.push({ column: name, count: at.length, examples });
      }
    }
    if (kind === "numeric") {
      let count = 0, first = -1;
      cells.forEach((c, i) => {
        if (c !== null && isFormatted(c)) count++, first = first < 0 ? i : first;
      });
      if (count) {
        const text = raw.rows[first]![j]!.trim();
        formats.push({
          column: name,
          count,
          example: { text, line: raw.lines[first]!, value: parseNumber(text) },
        });
      }
    }
    return buildColumn(name, kind, cells, (i) => ({ file, line: raw.lines[i]! }));
  });
  return {
    nRows: raw.rows.length,
    columns,
    ...(strays.length ? { strays } : {}),
    ...(formats.length ? { formats } : {}),
    ...(decimals ? { decimals } : {}),
    ...(raw.rowNames ? { rowNames: raw.rowNames } : {}),
    ...(raw.declared ? { declared: raw.declared } : {}),
  };
}

/** Reads and parses a CSV file; a missing or oversized file is a `CsvError` for that file. */
export function readCsvFile(path: string, options: ReadOptions = {}): ReadTable {
  const maxChars = options.limits?.maxChars ?? DEFAULT_LIMITS.maxChars;
  let size: number;
  try {
    size = Deno.statSync(path).size;
  } catch (e) {
    throw new CsvError(path, 0, e instanceof Deno.errors.NotFound ? "no such file" : String(e));
  }
  if (size > maxChars * 4) throw new CsvError(path, 0, `it has ${size} bytes, more than the limit`);
  let bytes: Uint8Array;
  try {
    bytes = Deno.readFileSync(path);
  } catch (e) {
    throw new CsvError(path, 0, String(e));
  }
  const text = decodeUtf8(unpack(bytes, path, maxChars * 4), path);
  return readTable(text, path, options);
}

/** What a file's first bytes say it is when it is no text: a format to save as CSV instead. */
const BINARY: { magic: number[]; what: string; how: string }[] = [
  {
    magic: [0x50, 0x4b, 0x03, 0x04],
    what: "a zip archive (an Excel .xlsx workbook is one)",
    how: "save the sheet as CSV UTF-8",
  },
  {
    magic: [0xd0, 0xcf, 0x11, 0xe0],
    what: "an Excel 97–2003 workbook (.xls)",
    how: "save the sheet as CSV UTF-8",
  },
  { magic: [0x50, 0x41, 0x52, 0x31], what: "a Parquet file", how: "write it as CSV (pandas: df.to_csv)" },
  {
    magic: [0x42, 0x5a, 0x68],
    what: "bzip2-compressed",
    how: "decompress it (bunzip2), or recompress it with gzip",
  },
  {
    magic: [0xfd, 0x37, 0x7a, 0x58, 0x5a],
    what: "xz-compressed",
    how: "decompress it (unxz), or recompress it with gzip",
  },
];

/** Whether `bytes` are gzip-compressed (a `.csv.gz`), which the reader reads through. */
export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/**
 * A data file's bytes as text bytes: a gzip-compressed file decompressed (at most `maxBytes`), the bytes as
 * they are otherwise; a workbook, an archive or a columnar file is a CsvError that names it and says what to
 * save instead (read as text it would only be called "not UTF-8").
 */
export function unpack(bytes: Uint8Array, file: string, maxBytes: number): Uint8Array {
  for (const b of BINARY) {
    if (b.magic.every((m, i) => bytes[i] === m)) {
      throw new CsvError(file, 0, `it is ${b.what}, not CSV text: ${b.how}`);
    }
  }
  if (!isGzip(bytes)) return bytes;
  // node:zlib is looked up when a gzip file is read: a static import would reach the dashboard's browser
  // bundle (it imports tree types, which import this toolkit).
  const zlib = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
    ?.getBuiltinModule?.("node:zlib") as typeof import("node:zlib") | undefined;
  if (!zlib) {
    throw new CsvError(file, 0, "it is gzip-compressed, and this runtime cannot decompress it: gunzip it");
  }
  let out: Uint8Array;
  try {
    out = zlib.gunzipSync(bytes, { maxOutputLength: maxBytes });
  } catch (e) {
    const why = /maxOutputLength|buffer|too large/i.test(String(e))
      ? `more than ${maxBytes} bytes once decompressed, more than the limit`
      : `not a whole gzip stream (${e instanceof Error ? e.message : String(e)})`;
    throw new CsvError(file, 0, `it is gzip-compressed but ${why}`);
  }
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/**
 * Where the first byte that is not UTF-8 is: its offset, line (1-based) and column (1-based, in bytes), or
 * null when every byte sequence is valid UTF-8.
 */
export function invalidUtf8(bytes: Uint8Array): { offset: number; line: number; column: number } | null {
  let line = 1, lineStart = 0;
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!;
    if (b < 0x80) {
      if (b === 0x0a) line++, lineStart = i + 1;
      i++;
      continue;
    }
    const len = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    let ok = len > 0 && i + len <= bytes.length;
    for (let k = 1; ok && k < len; k++) ok = (bytes[i + k]! & 0xc0) === 0x80;
    if (ok && len === 3) {
      const c = bytes[i + 1]!;
      ok = !(b === 0xe0 && c < 0xa0) && !(b === 0xed && c >= 0xa0); // overlong, surrogate
    } else if (ok && len === 4) {
      const c = bytes[i + 1]!;
      ok = !(b === 0xf0 && c < 0x90) && !(b === 0xf4 && c >= 0x90); // overlong, past U+10FFFF
    }
    if (!ok) return { offset: i, line, column: i - lineStart + 1 };
    i += len;
  }
  return null;
}

/** The UTF-16 a byte-order mark at the start of `bytes` names (Excel's "Unicode Text" is UTF-16LE), or null. */
export function utf16Bom(bytes: Uint8Array): "utf-16le" | "utf-16be" | null {
  if (bytes.length < 2) return null;
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  return null;
}

/**
 * The text of a CSV file's bytes: UTF-8, or UTF-16 when a byte-order mark says so (`utf16Bom`); else a
 * CsvError at the line of the first byte that is not UTF-8 (a file saved as Latin-1 or Windows-1252 is the
 * usual cause), naming the byte and how to convert the file.
 */
export function decodeUtf8(bytes: Uint8Array, file: string): string {
  const wide = utf16Bom(bytes);
  if (wide) {
    try {
      return new TextDecoder(wide, { fatal: true }).decode(bytes);
    } catch {
      throw new CsvError(
        file,
        0,
        `it starts with a ${wide.toUpperCase()} byte-order mark but is not valid ${wide.toUpperCase()} text`,
      );
    }
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    // Not UTF-8: found again byte by byte, only now, to name where.
  }
  const bad = invalidUtf8(bytes) ?? { offset: 0, line: 1, column: 1 };
  const hex = bytes[bad.offset]!.toString(16).toUpperCase().padStart(2, "0");
  throw new CsvError(
    file,
    bad.line,
    `it is not valid UTF-8 text: byte 0x${hex} at column ${bad.column} (saved as Latin-1 or Windows-1252? ` +
      `convert it, e.g. iconv -f WINDOWS-1252 -t UTF-8 ${shown(file)} > converted.csv)`,
  );
}
