/**
 * Calendar dates in text cells: `2021-03-14`, `2021/03/14`, `14.03.2021`, `03/14/2021` or `14/03/2021`, and
 * with the month by its English name, `14-Mar-2021`, `14 March 2021` or `Mar 14, 2021`, each optionally
 * with a time (`T09:30`, ` 09:30:15.250`, a trailing `Z`, offset or `UTC`, which is ignored: the local
 * clock time is what a season or a rush hour follows). A day-first or month-first file is told apart by its
 * own cells (`dayFirst`): a first field above 12 anywhere makes the column day-first.
 *
 * A tree splits on a date's order only if the order survives encoding; its month, weekday and hour never
 * do. `dateParts` gives them as numbers, for the library's date family and for `looksLikeDates`, which
 * decides from dev rows which columns the family is offered on.
 *
 * @module
 */

const TIME = String.raw`(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?\s*(?:Z|[+-]\d{2}:?\d{2}|UTC|GMT)?`;
const YEAR_FIRST = new RegExp(String.raw`^\s*(\d{4})([-/.])(\d{1,2})\2(\d{1,2})${TIME}\s*$`);
const YEAR_LAST = new RegExp(String.raw`^\s*(\d{1,2})([-/.])(\d{1,2})\2(\d{4})${TIME}\s*$`);
/** A month by name, day first (`14-Mar-2021` as R and Excel write it, `14 March 2021`). */
const DAY_MONTH = new RegExp(String.raw`^\s*(\d{1,2})[-\s]([A-Za-z]{3,9})\.?[-\s]\s*(\d{4})${TIME}\s*$`);
/** A month by name, month first (`Mar 14, 2021`, `March 14 2021`). */
const MONTH_DAY = new RegExp(String.raw`^\s*([A-Za-z]{3,9})\.?\s+(\d{1,2}),?\s+(\d{4})${TIME}\s*$`);
const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const FULL = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

/** An English month name's number (`Mar`, `march`, `Sept`), or 0. */
function monthNamed(name: string): number {
  const n = name.toLowerCase();
  const k = MONTHS.indexOf(n.slice(0, 3));
  return k >= 0 && (n.length === 3 || n === FULL[k] || n === "sept") ? k + 1 : 0;
}

/** The parts of a date: calendar fields, days since 1970-01-01, weekday (0 = Sunday), hour of day. */
export interface DateParts {
  year: number;
  month: number;
  day: number;
  days: number;
  weekday: number;
  /** Hours since midnight (fractional), or null when the cell has no time. */
  hour: number | null;
}

/** A year-last cell's first field (day or month, by the file), or null for any other cell. */
export function firstField(v: unknown): number | null {
  if (typeof v !== "string") return null;
  const m = YEAR_LAST.exec(v);
  return m ? Number(m[1]) : null;
}

/** Whether a column's year-last cells are day-first: some first field is above 12. */
export function dayFirst(values: Iterable<unknown>): boolean {
  for (const v of values) {
    const f = firstField(v);
    if (f !== null && f > 12) return true;
  }
  return false;
}

/** The parts of the date in `v`, or null when it holds none (a real calendar day, so 2021-02-30 is none). */
export function dateParts(v: unknown, dmy = false): DateParts | null {
  if (typeof v !== "string") return null;
  let year: number, month: number, day: number, time: (string | undefined)[];
  const a = YEAR_FIRST.exec(v);
  const b = a ? null : YEAR_LAST.exec(v);
  const c = a || b ? null : DAY_MONTH.exec(v);
  const e = a || b || c ? null : MONTH_DAY.exec(v);
  if (a) {
    year = Number(a[1]), month = Number(a[3]), day = Number(a[4]), time = a.slice(5);
  } else if (b) {
    const [x, y] = [Number(b[1]), Number(b[3])];
    [day, month] = dmy ? [x, y] : [y, x];
    year = Number(b[4]), time = b.slice(5);
  } else if (c) {
    day = Number(c[1]), month = monthNamed(c[2]!), year = Number(c[3]), time = c.slice(4);
  } else if (e) {
    month = monthNamed(e[1]!), day = Number(e[2]), year = Number(e[3]), time = e.slice(4);
  } else return null;
  if (month < 1 || month > 12 || day < 1) return null;
  const t = Date.UTC(year, month - 1, day);
  const d = new Date(t);
  if (d.getUTCDate() !== day || d.getUTCMonth() !== month - 1) return null;
  const [h = null, mi = 0, s = 0] = time.slice(0, 3).map((x) => (x === undefined ? null : Number(x)));
  if (h !== null && (h > 23 || (mi ?? 0) > 59 || (s ?? 0) > 60)) return null;
  return {
    year,
    month,
    day,
    days: Math.round(t / 86_400_000),
    weekday: d.getUTCDay(),
    hour: h === null ? null : h + (mi ?? 0) / 60 + (s ?? 0) / 3600,
  };
}

/** Fewest distinct values, and least share of present cells that parse, for a column to be offered as dates. */
export const DATE_LIKE = { distinct: 3, share: 0.95 } as const;

/**
 * Whether text values are dates: at least DATE_LIKE.distinct distinct values and DATE_LIKE.share of the
 * present ones parse (either field order).
 */
export function looksLikeDates(values: readonly string[]): boolean {
  if (new Set(values).size < DATE_LIKE.distinct) return false;
  const dmy = dayFirst(values);
  let ok = 0;
  for (const v of values) if (dateParts(v, dmy) !== null) ok++;
  return ok >= DATE_LIKE.share * values.length;
}
