/**
 * The columnar table every part of the toolkit passes around: numeric and boolean columns as Float64Array
 * (NaN = missing), categorical columns as integer codes into sorted levels (−1 = missing), free text as
 * strings (null = missing). Row subsets are index arrays into one table, never copies, until a caller asks.
 *
 * @module
 */

export type ColumnKind = "numeric" | "boolean" | "categorical" | "text";

export interface NumericColumn {
  kind: "numeric";
  name: string;
  /** NaN marks a missing value. */
  values: Float64Array;
}

export interface BooleanColumn {
  kind: "boolean";
  name: string;
  /** 1 true, 0 false, NaN missing. */
  values: Float64Array;
  /**
   * The file's own words for false and true (`["no", "yes"]`), the first spelling of each met; written back
   * by writeCsv and used as a target's class labels, so no `yes` silently becomes `true`. Absent: false/true.
   */
  labels?: [string, string];
}

export interface CategoricalColumn {
  kind: "categorical";
  name: string;
  /** Index into `levels`, −1 for missing. */
  codes: Int32Array;
  /** Distinct values, sorted by code unit order (so the same values give the same codes in any file order). */
  levels: string[];
}

export interface TextColumn {
  kind: "text";
  name: string;
  values: (string | null)[];
}

export type Column = NumericColumn | BooleanColumn | CategoricalColumn | TextColumn;

export interface Table {
  nRows: number;
  columns: Column[];
}

/** A row index set into a table (sorted ascending by the split functions). */
export type Rows = Int32Array;

/** The column named `name`, or a RangeError listing what exists. */
export function getColumn(table: Table, name: string): Column {
  const c = table.columns.find((c) => c.name === name);
  if (!c) {
    const names = table.columns.map((c) => JSON.stringify(c.name)).join(", ");
    throw new RangeError(`Cannot find column ${JSON.stringify(name)}: the table has ${names}`);
  }
  return c;
}

/** True when the cell at `row` of `col` is missing. */
export function isMissing(col: Column, row: number): boolean {
  switch (col.kind) {
    case "numeric":
    case "boolean":
      return Number.isNaN(col.values[row]!);
    case "categorical":
      return col.codes[row]! < 0;
    case "text":
      return col.values[row] === null;
  }
}

/** The cell at `row` as a plain value: number, boolean, string, or null when missing. */
export function cellValue(col: Column, row: number): number | boolean | string | null {
  switch (col.kind) {
    case "numeric": {
      const v = col.values[row]!;
      return Number.isNaN(v) ? null : v;
    }
    case "boolean": {
      const v = col.values[row]!;
      return Number.isNaN(v) ? null : v === 1;
    }
    case "categorical": {
      const c = col.codes[row]!;
      return c < 0 ? null : col.levels[c]!;
    }
    case "text":
      return col.values[row] ?? null;
  }
}

/** A new table holding only `rows` (in that order), with categorical levels kept as they are. */
export function takeRows(table: Table, rows: ArrayLike<number>): Table {
  const n = rows.length;
  const columns = table.columns.map((col): Column => {
    switch (col.kind) {
      case "numeric":
      case "boolean": {
        const values = new Float64Array(n);
        for (let i = 0; i < n; i++) values[i] = col.values[rows[i]!]!;
        return { ...col, values };
      }
      case "categorical": {
        const codes = new Int32Array(n);
        for (let i = 0; i < n; i++) codes[i] = col.codes[rows[i]!]!;
        return { ...col, codes };
      }
      case "text":
        return { ...col, values: Array.from({ length: n }, (_, i) => col.values[rows[i]!] ?? null) };
    }
  });
  return { nRows: n, columns };
}

/** Each column's kind, to force on a re-read subset (`readTable(text, file, { types })`) so kinds never drift. */
export function columnKinds(table: Table): Record<string, ColumnKind> {
  return Object.fromEntries(table.columns.map((c) => [c.name, c.kind]));
}

/** All row indices 0..n−1. */
export function allRows(table: Table): Rows {
  return Int32Array.from({ length: table.nRows }, (_, i) => i);
}

/** A short description per column (kind, missing count, levels) for logs and executor inputs. */
export function describeTable(
  table: Table,
): { name: string; kind: ColumnKind; missing: number; levels?: number }[] {
  return table.columns.map((col) => {
    let missing = 0;
    for (let r = 0; r < table.nRows; r++) if (isMissing(col, r)) missing++;
    return col.kind === "categorical"
      ? { name: col.name, kind: col.kind, missing, levels: col.levels.length }
      : { name: col.name, kind: col.kind, missing };
  });
}
