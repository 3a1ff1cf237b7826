/**
 * The source of each library hypothesis: a complete TypeScript step module (default export
 * `{ fit, transform }`, sometimes `fitTransform` for out-of-fold features) that imports nothing but the
 * tabular toolkit by relative path. Everything a step learns (edges, level counts, group means, target
 * means) it learns in `fit`, from training rows only. Names from the data are embedded as JSON string
 * literals, so no column name can break out of the code.
 *
 * @module
 */
import type { Family } from "../types.ts";
import { dates, textGroup, textLength, title } from "./text_code.ts";

export interface CodeContext {
  /** Import specifier of the toolkit's mod.ts, relative to the steps/ directory. */
  toolkit: string;
  target: string;
  /** Class labels as text (empty for regression). */
  classes: string[];
  seed: number;
}

const lit = (v: unknown) => JSON.stringify(v);
const oneLine = (s: string) => s.replace(/[\r\n\u2028\u2029]+/g, " ");

function header(text: string, family: Family, ctx: CodeContext, runtime: string[] = []): string {
  const types = `import type { FeatureTransform, Row } from ${lit(ctx.toolkit)};`;
  const values = runtime.length ? `\nimport { ${runtime.join(", ")} } from ${lit(ctx.toolkit)};` : "";
  return `// ${
    oneLine(text)
  }\n// Family: ${family}. Written by Arrow's library ideator.\n${types}${values}\n\n`;
}

const PER_ROW = (col: string, out: string, expr: string) =>
  `const COL = ${lit(col)};
const OUT = ${lit(out)};

const step: FeatureTransform<null> = {
  fit: () => null,
  transform: (_state, rows) => rows.map((r: Row) => ({ ...r, [OUT]: ${expr} })),
};
export default step;
`;

const PAIR = (a: string, b: string, out: string, expr: string) =>
  `const A = ${lit(a)};
const B = ${lit(b)};
const OUT = ${lit(out)};

const step: FeatureTransform<null> = {
  fit: () => null,
  transform: (_state, rows) =>
    rows.map((r: Row) => {
      const a = r[A], b = r[B];
      return { ...r, [OUT]: typeof a === "number" && typeof b === "number" ? ${expr} : null };
    }),
};
export default step;
`;

function binning(col: string, k: number): string {
  return `const COL = ${lit(col)};
const OUT = ${lit(`${col}~bin${k}`)};
const K = ${k};

const step: FeatureTransform<number[]> = {
  fit: (rows) => {
    const xs = rows.map((r) => r[COL]).filter((v): v is number => typeof v === "number").sort((a, b) => a - b);
    const edges: number[] = [];
    for (let q = 1; q < K; q++) {
      const v = xs[Math.floor((q * xs.length) / K)];
      if (v !== undefined && edges.at(-1) !== v) edges.push(v);
    }
    return edges;
  },
  transform: (edges, rows) =>
    rows.map((r: Row) => {
      const v = r[COL];
      if (typeof v !== "number") return { ...r, [OUT]: null };
      let b = 0;
      while (b < edges.length && v >= edges[b]!) b++;
      return { ...r, [OUT]: \`b\${b}\` };
    }),
};
export default step;
`;
}

const COUNTS = `function counts(rows: Row[], col: string): Map<string, number> {
  const c = new Map<string, number>();
  for (const r of rows) {
    const v = r[col];
    if (v !== null && v !== undefined) c.set(String(v), (c.get(String(v)) ?? 0) + 1);
  }
  return c;
}
`;

function rareGroup(col: string): string {
  return `const COL = ${lit(col)};
${COUNTS}
const step: FeatureTransform<string[]> = {
  fit: (rows) => {
    const min = Math.max(5, Math.ceil(rows.length * 0.01));
    return [...counts(rows, COL)].filter(([, n]) => n >= min).map(([level]) => level);
  },
  transform: (kept, rows) => {
    const keep = new Set(kept);
    return rows.map((r: Row) => {
      const v = r[COL];
      return v === null || v === undefined ? r : { ...r, [COL]: keep.has(String(v)) ? String(v) : "(rare)" };
    });
  },
};
export default step;
`;
}

function frequency(col: string): string {
  return `const COL = ${lit(col)};
const OUT = ${lit(`${col}~share`)};
${COUNTS}
const step: FeatureTransform<Record<string, number>> = {
  fit: (rows) => Object.fromEntries([...counts(rows, COL)].map(([level, n]) => [level, n / rows.length])),
  transform: (shares, rows) =>
    rows.map((r: Row) => {
      const v = r[COL];
      return { ...r, [OUT]: v === null || v === undefined ? null : shares[String(v)] ?? 0 };
    }),
};
export default step;
`;
}

function targetEncode(col: string, ctx: CodeContext): string {
  return `const COL = ${lit(col)};
const TARGET = ${lit(ctx.target)};
const CLASSES: string[] = ${lit(ctx.classes)};
const SMOOTHING = 10;
const INNER_FOLDS = 5;
const SEED = ${ctx.seed};
const NAMES = CLASSES.length > 2 ? CLASSES.map((c) => \`\${COL}~te=\${c}\`) : [\`\${COL}~te\`];

interface Means {
  prior: number[];
  levels: Record<string, number[]>;
}

/** The target as numbers: the value (regression), P(class 1) (binary), one indicator per class. */
function ys(r: Row): number[] | null {
  const y = r[TARGET];
  if (y === null || y === undefined) return null;
  if (CLASSES.length === 0) return typeof y === "number" ? [y] : null;
  // A yes/no target arrives as a boolean; its classes are the file's own words, false first.
  const s = typeof y === "boolean" ? CLASSES[y ? 1 : 0] : String(y);
  return CLASSES.length === 2 ? [s === CLASSES[1] ? 1 : 0] : CLASSES.map((c) => (s === c ? 1 : 0));
}

function means(rows: Row[]): Means {
  const dim = NAMES.length;
  const total = new Array<number>(dim).fill(0);
  let n = 0;
  const sums = new Map<string, { s: number[]; n: number }>();
  for (const r of rows) {
    const y = ys(r);
    if (!y) continue;
    n++;
    y.forEach((v, j) => (total[j]! += v));
    const v = r[COL];
    if (v === null || v === undefined) continue;
    const e = sums.get(String(v)) ?? { s: new Array<number>(dim).fill(0), n: 0 };
    y.forEach((x, j) => (e.s[j]! += x));
    e.n++;
    sums.set(String(v), e);
  }
  const prior = total.map((t) => (n ? t / n : 0));
  const levels: Record<string, number[]> = {};
  for (const [level, e] of sums) levels[level] = e.s.map((s, j) => (s + SMOOTHING * prior[j]!) / (e.n + SMOOTHING));
  return { prior, levels };
}

function encode(m: Means, r: Row): Row {
  const v = r[COL];
  const vals = v === null || v === undefined ? m.prior : m.levels[String(v)] ?? m.prior;
  const out: Row = { ...r };
  NAMES.forEach((name, j) => (out[name] = vals[j] ?? null));
  return out;
}

const step: FeatureTransform<Means> = {
  fit: (rows) => means(rows),
  transform: (m, rows) => rows.map((r) => encode(m, r)),
  // Training rows get means from the other inner folds only, so a row never sees its own target.
  fitTransform: (rows) => {
    const rng = mulberry32(subSeed(SEED, COL));
    const fold = rows.map(() => Math.floor(rng() * INNER_FOLDS));
    const out = rows.slice();
    for (let f = 0; f < INNER_FOLDS; f++) {
      const inner = means(rows.filter((_, i) => fold[i] !== f));
      rows.forEach((r, i) => {
        if (fold[i] === f) out[i] = encode(inner, r);
      });
    }
    return { state: means(rows), rows: out };
  },
};
export default step;
`;
}

function groupStats(num: string, cat: string): string {
  return `const NUM = ${lit(num)};
const CAT = ${lit(cat)};
const MEAN = ${lit(`${num}~mean_by_${cat}`)};
const DIFF = ${lit(`${num}~minus_mean_by_${cat}`)};

interface Groups {
  all: number | null;
  by: Record<string, number>;
}

const step: FeatureTransform<Groups> = {
  fit: (rows) => {
    const sums = new Map<string, [number, number]>();
    let s = 0, n = 0;
    for (const r of rows) {
      const v = r[NUM], c = r[CAT];
      if (typeof v !== "number") continue;
      s += v;
      n++;
      if (c === null || c === undefined) continue;
      const e = sums.get(String(c)) ?? [0, 0];
      sums.set(String(c), [e[0] + v, e[1] + 1]);
    }
    const by: Record<string, number> = {};
    for (const [c, [t, k]] of sums) if (k >= 3) by[c] = t / k;
    return { all: n ? s / n : null, by };
  },
  transform: (g, rows) =>
    rows.map((r: Row) => {
      const v = r[NUM], c = r[CAT];
      const m = c === null || c === undefined ? g.all : g.by[String(c)] ?? g.all;
      return { ...r, [MEAN]: m, [DIFF]: typeof v === "number" && m !== null ? v - m : null };
    }),
};
export default step;
`;
}

function drop(col: string): string {
  return `const COL = ${lit(col)};

const step: FeatureTransform<null> = {
  fit: () => null,
  transform: (_state, rows) =>
    rows.map((r: Row) => {
      const { [COL]: _dropped, ...rest } = r;
      return rest;
    }),
};
export default step;
`;
}

/** The module source of a library hypothesis (capacity changes have none). */
export function moduleSource(
  family: Family,
  columns: string[],
  params: Record<string, number | string>,
  text: string,
  ctx: CodeContext,
): string | null {
  const [a = "", b = ""] = columns;
  const runtime = family === "target_encode"
    ? ["mulberry32", "subSeed"]
    : family === "date_parts"
    ? ["dateParts", "dayFirst"]
    : [];
  const head = header(text, family, ctx, runtime);
  switch (family) {
    case "missing_indicator":
      return head + PER_ROW(a, `${a}~missing`, "r[COL] === null || r[COL] === undefined ? 1 : 0");
    case "log":
      return head +
        PER_ROW(
          a,
          `${a}~log1p`,
          'typeof r[COL] === "number" && (r[COL] as number) > -1 ? Math.log1p(r[COL] as number) : null',
        );
    case "ratio":
      return head + PAIR(a, b, `${a}/${b}`, "(b !== 0 ? a / b : null)");
    case "product":
      return head + PAIR(a, b, `${a}*${b}`, "a * b");
    case "binning":
      return head + binning(a, Number(params.bins ?? 5));
    case "rare_group":
      return head + rareGroup(a);
    case "frequency_encode":
      return head + frequency(a);
    case "target_encode":
      return head + targetEncode(a, ctx);
    case "text_features":
      return head +
        (params.part === "length" ? textLength(a) : params.part === "group" ? textGroup(a) : title(a));
    case "group_stats":
      return head + groupStats(a, b);
    case "date_parts":
      return head + dates(a);
    case "drop_column":
      return head + drop(a);
    case "capacity":
    case "linear_model":
    case "ensemble":
    case "llm":
      return null;
  }
}
