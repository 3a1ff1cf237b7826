/**
 * Column types from cell text. The rules, in order, over a column's non-missing cells:
 *
 * 1. **Missing**: a cell whose trimmed text is exactly one of `""`, `NA`, `N/A`, `n/a`, `NaN`, `nan`, `null`,
 *    `NULL`, `None`, `?`, `#N/A`, `<NA>` — case-sensitive on purpose (pandas' convention): lower-case `none`
 *    or `na` are real levels in public data (German credit's `other_parties = none`). Quoted or not makes no
 *    difference.
 * 2. **Boolean**: every value, lower-cased, is one of `true false t f yes no y n` (1/0 stay numeric).
 * 3. **Numeric**: every value is a finite decimal number (`-1`, `2.5`, `.5`, `1e-3`; no `Infinity`, no hex), or a
 *    number as a spreadsheet formats it (`formatted`): thousands commas in groups of three (`1,200.50`), a
 *    leading currency sign (`$`, `€`, `£`, `¥`), a trailing `%` (read as the number shown: `12%` is 12), an
 *    accounting negative in parentheses (`(1,200)` is −1200) — or nearly every one (`STRAYS`): at least 20 numbers, the rest at most 5 % of the
 *    values and at most 5 distinct texts (`inf`, `unknown`, `-`). Those stray cells are read as missing
 *    (`readTable` lists them, so the caller can say so), not the whole column as hundreds of categories.
 * 4. **Text** (free text, e.g. a passenger name): at least 20 distinct values, more distinct values than half
 *    the cells, and at least half the cells contain whitespace — or an average length of 40 characters or more.
 * 5. **Categorical** otherwise (high-cardinality codes such as a cabin number stay categorical).
 *
 * In a file whose columns are not separated by commas, a column whose numbers are written with a decimal
 * comma (`0,538`, as a spreadsheet in a decimal-comma locale saves with `;`) is read with those commas as
 * decimal points first (`decimalComma`; read.ts says so).
 *
 * A column with no non-missing value is numeric (all NaN). A caller can force a kind per column; a cell that
 * then does not fit is a `CsvError` at its line.
 *
 * @module
 */
import { CsvError, shown } from "./csv.ts";
import type { Column, ColumnKind } from "./table.ts";

export const MISSING_MARKERS: readonly string[] = [
  "",
  "NA",
  "N/A",
  "n/a",
  "NaN",
  "nan",
  "null",
  "NULL",
  "None",
  "?",
  "#N/A",
  "<NA>",
];
const MISSING = new Set(MISSING_MARKERS);
const TRUE = new Set(["true", "t", "yes", "y"]);
const FALSE = new Set(["false", "f", "no", "n"]);
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

export function isMissingText(s: string): boolean {
  return MISSING.has(s.trim());
}

export function parseBoolean(s: string): number {
  const l = s.trim().toLowerCase();
  return TRUE.has(l) ? 1 : FALSE.has(l) ? 0 : NaN;
}

/** A spreadsheet's number: sign, currency sign, sign, digits (commas only in whole groups of three), `%`. */
const FORMATTED = /^([+-]?)\s*([$€£¥]?)\s*([+-]?)(\d{1,3}(?:,\d{3})+(?:\.\d*)?|\d+\.?\d*|\.\d+)\s*(%?)$/;

/**
 * The number a formatted cell shows (`$1,200.50`, `-€3`, `12.5 %`, `(1,200)`), or NaN when the text is not
 * one: at most one sign, and at least one of a currency sign, a thousands comma or `%` (plain numbers are
 * `NUMBER`'s). A comma that does not sit before a group of three digits is no thousands separator (`1,5` is
 * a decimal comma or a list: not read).
 */
export function formatted(t: string): number {
  const paren = t.length > 2 && t[0] === "(" && t[t.length - 1] === ")";
  const m = FORMATTED.exec(paren ? t.slice(1, -1).trim() : t);
  if (!m) return NaN;
  const [, s1, cur, s2, digits, pct] = m;
  if ((s1 && s2) || (paren && (s1 || s2)) || !(paren || cur || pct || digits!.includes(","))) return NaN;
  const v = Number(digits!.replaceAll(",", ""));
  return (s1 === "-" || s2 === "-" || paren) ? -v : v;
}

/** A number written with a decimal comma (`0,538`, `-3,5`, `,5`, `2,5e-3`). */
const DECIMAL_COMMA = /^[+-]?(\d+,\d*|,\d+)([eE][+-]?\d+)?$/;

/**
 * The decimal-point form of a number written with a decimal comma (`0,538` → `0.538`), or null when the cell
 * is no such number. Only a file whose columns are not separated by commas can hold one unquoted — where a
 * spreadsheet in a decimal-comma locale saves with `;` — and only there does the reader try it.
 */
export function decimalComma(s: string): string | null {
  const t = s.trim();
  return DECIMAL_COMMA.test(t) ? t.replace(",", ".") : null;
}

/** Whether a cell is a number only as formatted (`formatted`), not a plain decimal. */
export function isFormatted(s: string): boolean {
  const t = s.trim();
  return !NUMBER.test(t) && Number.isFinite(formatted(t));
}

export function parseNumber(s: string): number {
  const t = s.trim();
  return NUMBER.test(t) ? Number(t) : formatted(t);
}

/**
 * How many cells of a numeric column may fail to parse (each then read as missing): at least `numbers`
 * numbers, at most `share` of the column's values and `distinct` different texts.
 */
export const STRAYS = { numbers: 20, share: 0.05, distinct: 5 } as const;

/** Whether a cell of a numeric column is no number (a stray, read as missing). */
export function isStray(c: string): boolean {
  return !Number.isFinite(parseNumber(c));
}

/** The kind of a column from its cells (`null` = missing), by the rules in the module doc. */
export function inferKind(cells: readonly (string | null)[]): ColumnKind {
  let present = 0, bool = true, strays = 0, spaced = 0, chars = 0;
  const distinct = new Set<string>(), strayTexts = new Set<string>();
  for (const c of cells) {
    if (c === null) continue;
    present++;
    if (bool && Number.isNaN(parseBoolean(c))) bool = false;
    if (isStray(c)) {
      strays++;
      if (strayTexts.size <= STRAYS.distinct) strayTexts.add(c.trim());
    }
    if (distinct.size <= cells.length) distinct.add(c);
    if (/\s/.test(c)) spaced++;
    chars += c.length;
  }
  if (present === 0) return "numeric";
  if (bool) return "boolean";
  const num = strays === 0 || (present - strays >= STRAYS.numbers && strays <= STRAYS.share * present &&
    strayTexts.size <= STRAYS.distinct);
  if (num) return "numeric";
  const textLike = distinct.size >= 20 && distinct.size > present / 2 && spaced >= present / 2;
  return textLike || chars / present >= 40 ? "text" : "categorical";
}

/** Sorted distinct strings, by code unit order (locale-independent, so deterministic everywhere). */
export function sortedLevels(values: Iterable<string>): string[] {
  return [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Builds a column of `kind` from cells (`null` = missing). `where(i)` names the file line of cell i for the
 * error raised when a forced kind does not fit a cell.
 */
export function buildColumn(
  name: string,
  kind: ColumnKind,
  cells: readonly (string | null)[],
  where: (i: number) => { file: string; line: number },
): Column {
  const n = cells.length;
  const bad = (i: number, what: string): never => {
    const w = where(i);
    throw new CsvError(w.file, w.line, `column ${shown(name)} is ${what}, but holds ${shown(cells[i]!)}`);
  };
  switch (kind) {
    case "numeric":
    case "boolean": {
      const values = new Float64Array(n);
      const parse = kind === "numeric" ? parseNumber : parseBoolean;
      const labels: [string | null, string | null] = [null, null];
      for (let i = 0; i < n; i++) {
        const c = cells[i];
        if (c === null || c === undefined) values[i] = NaN;
        else {
          const v = parse(c);
          if (!Number.isFinite(v)) bad(i, kind === "numeric" ? "numeric" : "boolean");
          values[i] = v;
          if (kind === "boolean") labels[v] ??= c.trim();
        }
      }
      if (kind === "numeric") return { kind, name, values };
      return { kind, name, values, labels: [labels[0] ?? "false", labels[1] ?? "true"] };
    }
    case "categorical": {
      const levels = sortedLevels(cells.filter((c): c is string => c !== null));
      const index = new Map(levels.map((l, k) => [l, k]));
      const codes = new Int32Array(n);
      for (let i = 0; i < n; i++) {
        const c = cells[i];
        codes[i] = c === null || c === undefined ? -1 : index.get(c)!;
      }
      return { kind, name, codes, levels };
    }
    case "text":
      return { kind, name, values: cells.map((c) => c ?? null) };
  }
}
