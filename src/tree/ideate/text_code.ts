/**
 * The library's step modules that read a text column: a title or maker pulled out of it, the group its
 * value marks, its length and word count, and a date's calendar (tabular/dates.ts) in place of its text.
 * Written as library_code.ts writes every module: a complete step, names from the data as JSON literals.
 *
 * @module
 */

const lit = (v: unknown) => JSON.stringify(v);

export function title(col: string): string {
  return `const COL = ${lit(col)};
const OUT = ${lit(`${col}~title`)};

/** "Braund, Mr. Owen" → "mr"; "chevrolet chevelle malibu" → "chevrolet". */
function titleOf(s: string): string | null {
  const m = /,\\s*([^.,]+)\\./.exec(s);
  if (m) return m[1]!.trim().toLowerCase();
  const w = s.trim().split(/\\s+/)[0];
  return w ? w.toLowerCase() : null;
}

const step: FeatureTransform<string[]> = {
  fit: (rows) => {
    const c = new Map<string, number>();
    for (const r of rows) {
      const t = typeof r[COL] === "string" ? titleOf(r[COL] as string) : null;
      if (t !== null) c.set(t, (c.get(t) ?? 0) + 1);
    }
    return [...c].filter(([, n]) => n >= 3).map(([t]) => t);
  },
  transform: (kept, rows) => {
    const keep = new Set(kept);
    return rows.map((r: Row) => {
      const t = typeof r[COL] === "string" ? titleOf(r[COL] as string) : null;
      return { ...r, [OUT]: t === null ? null : keep.has(t) ? t : "(other)" };
    });
  },
};
export default step;
`;
}

export function textGroup(col: string): string {
  return `const COL = ${lit(col)};
const OUT = ${lit(`${col}~group`)};

/** The group a value marks: a name's surname (before its comma), else the value itself (a shared ticket, an
 * id shared by several rows). */
function keyOf(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  const s = String(v).trim().toLowerCase();
  const at = s.indexOf(",");
  return at > 0 ? s.slice(0, at) : s || null;
}

const step: FeatureTransform<Record<string, number>> = {
  fit: (rows) => {
    const c: Record<string, number> = {};
    for (const r of rows) {
      const k = keyOf(r[COL]);
      if (k !== null) c[k] = (c[k] ?? 0) + 1;
    }
    return c;
  },
  transform: (sizes, rows) =>
    rows.map((r: Row) => {
      const k = keyOf(r[COL]);
      return { ...r, [OUT]: k === null ? null : Object.hasOwn(sizes, k) ? sizes[k]! : 0 };
    }),
};
export default step;
`;
}

export function textLength(col: string): string {
  return `const COL = ${lit(col)};
const LEN = ${lit(`${col}~length`)};
const WORDS = ${lit(`${col}~words`)};

const step: FeatureTransform<null> = {
  fit: () => null,
  transform: (_state, rows) =>
    rows.map((r: Row) => {
      const v = r[COL];
      if (v === null || v === undefined) return { ...r, [LEN]: null, [WORDS]: null };
      const s = String(v);
      return { ...r, [LEN]: s.length, [WORDS]: s.split(/\\s+/).filter(Boolean).length };
    }),
};
export default step;
`;
}

export function dates(col: string): string {
  return `const COL = ${lit(col)};
const OUT = ${lit(`${col}~`)};

/** Whether the column's year-last dates are day-first (learnt from training rows), and whether any has a time. */
interface Seen {
  dmy: boolean;
  time: boolean;
}

const step: FeatureTransform<Seen> = {
  fit: (rows) => {
    const dmy = dayFirst(rows.map((r) => r[COL]));
    return { dmy, time: rows.some((r) => dateParts(r[COL], dmy)?.hour != null) };
  },
  transform: (seen, rows) =>
    rows.map((r: Row) => {
      const { [COL]: v, ...rest } = r;
      const d = dateParts(v, seen.dmy);
      const out: Row = {
        ...rest,
        [OUT + "year"]: d ? d.year : null,
        [OUT + "month"]: d ? d.month : null,
        [OUT + "day"]: d ? d.day : null,
        [OUT + "weekday"]: d ? d.weekday : null,
        [OUT + "days"]: d ? d.days : null,
      };
      if (seen.time) out[OUT + "hour"] = d ? d.hour : null;
      return out;
    }),
};
export default step;
`;
}
