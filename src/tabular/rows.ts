/**
 * Plain row objects ↔ the columnar table, for feature transforms written as ordinary code
 * (`rows.map((r) => ({ ...r, fare_per_person: r.Fare / (1 + r.SibSp) }))`). A row maps column names to a
 * number, string, boolean or null (missing); non-finite numbers and `undefined` also count as missing.
 *
 * The columns and kinds of a transform's output are fixed once, from its output on the training rows
 * (`inferSchema`); other rows are then read into that schema (`fromRows`), so a fold's validation rows can
 * never add, drop or retype a feature. Values that do not fit their column's kind become missing.
 *
 * @module
 */
import { buildColumn, inferKind, parseBoolean, parseNumber } from "./infer.ts";
import { cellValue, type ColumnKind, type Table } from "./table.ts";

export type Cell = number | string | boolean | null;
export type Row = Record<string, Cell>;

export interface Schema {
  columns: { name: string; kind: ColumnKind }[];
}

const MAX_COLUMNS = 4096;

/** The rows `rows` of `table` as objects, leaving out the columns in `omit`. */
export function toRows(table: Table, rows: ArrayLike<number>, omit: readonly string[] = []): Row[] {
  const cols = table.columns.filter((c) => !omit.includes(c.name));
  const out: Row[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row: Row = {};
    for (const c of cols) row[c.name] = cellValue(c, rows[i]!);
    out[i] = row;
  }
  return out;
}

function present(v: unknown): boolean {
  return v !== null && v !== undefined && !(typeof v === "number" && !Number.isFinite(v));
}

/** Column names (in first-seen order) and kinds of transform output rows. */
export function inferSchema(rows: readonly Row[], what = "the rows"): Schema {
  const names: string[] = [];
  const seen = new Set<string>();
  rows.forEach((row, i) => {
    if (typeof row !== "object" || row === null || Array.isArray(row)) {
      throw new TypeError(`Cannot read ${what}: row ${i} is not an object`);
    }
    for (const k of Object.keys(row)) {
      if (seen.has(k)) continue;
      if (seen.size >= MAX_COLUMNS) {
        throw new RangeError(`Cannot read ${what}: more than ${MAX_COLUMNS} columns`);
      }
      seen.add(k);
      names.push(k);
    }
  });
  const columns = names.map((name) => {
    let num = 0, bool = 0, str = 0;
    rows.forEach((row, i) => {
      const v: unknown = row[name];
      if (!present(v)) return;
      if (typeof v === "number") num++;
      else if (typeof v === "boolean") bool++;
      else if (typeof v === "string") str++;
      else {throw new TypeError(
          `Cannot read ${what}: row ${i}, column ${JSON.stringify(name)} holds a value of type ${typeof v}`,
        );}
    });
    const kind: ColumnKind = str === 0 && bool === 0
      ? "numeric"
      : str === 0 && num === 0
      ? "boolean"
      : inferKind(rows.map((r) => (present(r[name]) ? String(r[name]) : null)));
    return { name, kind };
  });
  return { columns };
}

/** Reads rows into a table of `schema` (extra keys ignored, absent ones missing). */
export function fromRows(rows: readonly Row[], schema: Schema): Table {
  const n = rows.length;
  const columns = schema.columns.map(({ name, kind }) => {
    if (kind === "numeric" || kind === "boolean") {
      const values = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const v: unknown = rows[i]?.[name];
        values[i] = !present(v)
          ? NaN
          : typeof v === "number"
          ? (kind === "numeric" || v === 0 || v === 1 ? v : NaN)
          : typeof v === "boolean"
          ? (v ? 1 : 0)
          : typeof v === "string"
          ? (kind === "numeric" ? parseNumber(v) : parseBoolean(v))
          : NaN;
      }
      return { kind, name, values };
    }
    const cells = rows.map((r) => {
      const v: unknown = r?.[name];
      return present(v) && (typeof v === "string" || typeof v === "number" || typeof v === "boolean")
        ? String(v)
        : null;
    });
    return buildColumn(name, kind, cells, () => ({ file: "<rows>", line: 0 }));
  });
  return { nRows: n, columns };
}
