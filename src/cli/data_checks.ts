/**
 * The checks `arrow tree --data` and `arrow run --data` make on the user's CSV before any run directory
 * exists, with the tabular reader both modes share: what cannot be used is refused (exit 1, naming the file),
 * and every decision the reader makes on the user's behalf is said aloud as a note.
 *
 * @module
 */
import {
  CsvError,
  decimalsNote,
  DEFAULT_LIMITS,
  formatsNote,
  isGzip,
  makeTarget,
  readCsvFile,
  type ReadTable,
  rowNamesNote,
  straysNote,
  type Table,
  type Target,
  unpack,
  utf16Bom,
} from "../tabular/mod.ts";
import { InputError, UsageError } from "./errors.ts";
import { printable } from "./escape.ts";

/** Fewest rows with a target the splits can cut: 60% dev in 5 folds, 20% held out, 20% test. */
export const MIN_ROWS = 10;
/** Below this many usable rows a run still goes, but its held-out and test parts are a handful of rows. */
export const FEW_ROWS = 100;

export interface DataCheck {
  table: Table;
  /** Decisions the reader made (rows dropped, labels read, columns typed), one sentence each. */
  notes: string[];
  /** Reasons to distrust what the run will find. */
  warnings: string[];
}

const q = (s: string) => JSON.stringify(printable(s, { max: 60 }));

/** The delimiters `--delimiter` takes (a tab as a real tab, `\t` or `tab`). */
export const DELIMITERS = [",", ";", "\t", "|"] as const;

/** `--delimiter`'s value as the one character it names, or undefined when not given; anything else refused. */
export function delimiterFlag(cmd: string, v: unknown): string | undefined {
  if (v === undefined) return undefined;
  const d = v === "\\t" || v === "tab" ? "\t" : String(v);
  if ((DELIMITERS as readonly string[]).includes(d)) return d;
  throw new UsageError(
    `arrow ${cmd}: --delimiter must be one of , ; \\t | (a tab as \\t or tab), got ${q(String(v))}`,
  );
}

const named = (d: string) => (d === "\t" ? "tabs" : `'${d}'`);
const flagOf = (d: string) => (d === "\t" ? "'\\t'" : `'${d}'`);

function gzipped(file: string): boolean {
  try {
    using f = Deno.openSync(file);
    const b = new Uint8Array(2);
    return (f.readSync(b) ?? 0) === 2 && isGzip(b);
  } catch {
    return false;
  }
}

/** The byte-order mark the file starts with, if any (the reader strips a UTF-8 one and reads UTF-16 by one). */
function byteOrderMark(file: string): "utf-8" | "utf-16le" | "utf-16be" | null {
  try {
    using f = Deno.openSync(file);
    const b = new Uint8Array(3);
    const n = f.readSync(b) ?? 0;
    if (n === 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return "utf-8";
    return utf16Bom(b.subarray(0, n));
  } catch {
    return null;
  }
}

/** The delimiter a header read as one column looks separated by (the commonest of `;`, tab, `|`), or null. */
function delimiterHint(header: string): string | null {
  const counts = [";", "\t", "|"].map((c) => ({ c, n: header.split(c).length - 1 }));
  const best = counts.sort((a, b) => b.n - a.n)[0]!;
  return best.n > 0 ? best.c : null;
}

/**
 * A hint for a file that could not be read as comma-separated: when its first line holds more of `;`, tab or
 * `|` than of commas, it names the delimiter to read it with (a `;` file with decimal commas fails on its
 * quotes or its row lengths long before it would be read as one column).
 */
function otherDelimiter(file: string, delimiter: string | undefined): string[] {
  if (delimiter !== undefined && delimiter !== ",") return [];
  let first = "";
  try {
    // The error path only: the file's text as the reader decodes it (gzip, UTF-16), its first line.
    const bytes = unpack(Deno.readFileSync(file), file, DEFAULT_LIMITS.maxChars * 4);
    const head = bytes.subarray(0, 64 * 1024);
    first = new TextDecoder(utf16Bom(head) ?? "utf-8").decode(head).split("\n")[0] ?? "";
  } catch {
    return [];
  }
  const hint = delimiterHint(first);
  if (!hint || first.split(hint).length <= first.split(",").length) return [];
  return [
    `its first line looks separated by ${named(hint)}, not commas: read it with --delimiter ${flagOf(hint)}` +
    (hint === ";" ? " (numbers written with a decimal comma, 0,5, are then read as numbers)" : ""),
  ];
}

/**
 * Reads and checks `file` for predicting `target`; throws InputError for anything that cannot be used.
 * `cells` is a mode's own rule on cells, run once the columns are known.
 */
export function checkData(
  cmd: string,
  file: string,
  target: string,
  o: { delimiter?: string; cells?: () => void } = {},
): DataCheck {
  const delimiter = o.delimiter;
  let table: ReadTable;
  try {
    table = readCsvFile(file, delimiter ? { delimiter } : {});
  } catch (e) {
    if (e instanceof CsvError) {
      throw new InputError(`arrow ${cmd}: ${e.message}`, otherDelimiter(file, delimiter));
    }
    if (e instanceof RangeError) throw new InputError(`arrow ${cmd}: ${e.message}`);
    throw e;
  }
  const names = table.columns.map((c) => c.name);
  const notes: string[] = [], warnings: string[] = [];
  if (gzipped(file)) notes.push(`${file} is gzip-compressed: read through it`);
  const bom = byteOrderMark(file);
  if (bom === "utf-8") {
    notes.push(`${file} starts with a UTF-8 byte-order mark (BOM): stripped before reading`);
  } else if (bom) {
    notes.push(
      `${file} is ${bom.toUpperCase()} text (its byte-order mark says so, as Excel's "Unicode Text" saves): read as such`,
    );
  }
  if (table.rowNames) notes.push(rowNamesNote(table.rowNames));
  for (const s of table.strays ?? []) notes.push(straysNote(s));
  for (const f of table.formats ?? []) notes.push(formatsNote(f));
  if (table.decimals) notes.push(decimalsNote(table.decimals));
  if (table.declared) {
    notes.push(
      `the first line, sep=${table.declared}, declares what separates the columns (as Excel reads it): ` +
        `read as separated by ${named(table.declared)}`,
    );
  } else if (delimiter !== undefined && delimiter !== ",") {
    notes.push(`columns read as separated by ${named(delimiter)}`);
  }
  if (names.length === 1) {
    const hint = delimiterHint(names[0]!);
    if (hint && hint !== delimiter) {
      throw new InputError(
        `arrow ${cmd}: ${file}:1: read as one column ${q(names[0]!)}: it looks separated by ${
          named(hint)
        }, not ${delimiter === undefined ? "commas" : named(delimiter)}`,
        [`read it with --delimiter ${
          flagOf(hint)
        } (or save it with commas, e.g. a spreadsheet's CSV export)`],
      );
    }
  }
  if (!names.includes(target)) {
    throw new InputError(`arrow ${cmd}: ${file}:1: no column ${q(target)} to predict`, [
      `columns in ${file}: ${names.map((n) => printable(n, { max: 60 })).join(", ")}`,
    ]);
  }
  if (names.length < 2) {
    throw new InputError(`arrow ${cmd}: ${file}:1: no feature columns besides the target ${q(target)}`);
  }
  // A mode's own rule on cells, named by line, before the counts of rows (which a bad cell would skew).
  o.cells?.();
  let t;
  try {
    t = makeTarget(table, target);
  } catch (e) {
    if (e instanceof RangeError) throw new InputError(`arrow ${cmd}: ${file}: ${e.message}`);
    throw e;
  }
  const usable = t.usable.length;
  if (usable < table.nRows) {
    notes.push(
      `${table.nRows - usable} of ${table.nRows} rows have no ${
        q(target)
      } value and are dropped; ${usable} rows are used`,
    );
  }
  const present = new Set(Array.from(t.usable, (i) => t.y[i]!));
  if (present.size === 1) {
    const only = t.task === "regression" ? String(t.y[t.usable[0]!]) : t.classes[t.y[t.usable[0]!]!]!;
    throw new InputError(
      `arrow ${cmd}: ${file}: the target ${q(target)} has one class (${
        q(only)
      } on every row that has one); ` +
        "there is nothing to predict",
    );
  }
  if (usable < MIN_ROWS) {
    throw new InputError(
      `arrow ${cmd}: ${file}: ${usable} rows with a target; at least ${MIN_ROWS} are needed for the splits ` +
        (cmd === "tree" ? "(dev folds, held-out and test rows)" : "(train, dev and test rows)"),
    );
  }
  if (t.task !== "regression") classChecks(t, file, cmd, q(target), notes);
  if (usable < FEW_ROWS) {
    warnings.push(
      `${file} has only ${usable} rows with a target: ${
        cmd === "tree" ? "held-out and test parts" : "dev and test parts"
      } of about ${Math.max(1, Math.round(usable * 0.2))} rows each; results on so few rows are noise`,
    );
  }
  // A yes/no target keeps the file's own words as its class labels (predictions and the report use them).
  if (table.columns.find((c) => c.name === target)!.kind === "boolean") {
    notes.push(
      `target ${q(target)} is yes/no: its classes keep the file's labels ${t.classes.map(q).join(" and ")} ` +
        `(the positive class is ${q(t.classes[1]!)})`,
    );
  }
  for (const c of table.columns) {
    if (c.name === target) continue;
    const values = c.kind === "categorical"
      ? Array.from(c.codes, (x) => (x < 0 ? NaN : 0))
      : c.kind === "text"
      ? c.values.map((v) => (v === null ? NaN : 0))
      : Array.from(c.values);
    if (values.every(Number.isNaN)) {
      notes.push(`column ${q(c.name)} is empty on every row: dropped (it carries no information)`);
    }
  }
  return { table, notes, warnings };
}

/** Fewer rows than this and a class is said to be rare (its held-out and test rows are one or none). */
const RARE_CLASS = 3;

/**
 * A classification target must have rows to learn each class from and rows to test it on: one whose classes
 * average fewer than two rows (a name or id per row) is refused; rare classes are said (the split keeps a
 * dev row of each, so their held-out and test rows are one or none).
 */
function classChecks(t: Target, file: string, cmd: string, target: string, notes: string[]): void {
  const counts = new Array<number>(t.classes.length).fill(0);
  for (const i of t.usable) counts[t.y[i]!]!++;
  const usable = t.usable.length;
  if (t.classes.length * 2 > usable) {
    const single = counts.filter((n) => n === 1).length;
    throw new InputError(
      `arrow ${cmd}: ${file}: the target ${target} has ${t.classes.length} classes over ${usable} rows ` +
        `(${single} of them on a single row): a class needs rows to learn it from and rows to test it on`,
      ["is it a name or an id? pick the column to predict with --target"],
    );
  }
  const rare = t.classes.flatMap((c, k) => (counts[k]! < RARE_CLASS ? [`"${c}" (${counts[k]})`] : []));
  if (rare.length) {
    notes.push(
      `target ${target}: ${rare.length} ${rare.length === 1 ? "class has" : "classes have"} fewer than ` +
        `${RARE_CLASS} rows (${rare.slice(0, 5).join(", ")}${rare.length > 5 ? ", …" : ""}): each keeps a ` +
        `${
          cmd === "tree" ? "dev row to learn from, so its held-out" : "training row, so its dev"
        } and test ` +
        "rows are one or none",
    );
  }
}
