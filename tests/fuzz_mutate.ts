/**
 * Seeded input mutation for the fuzz targets: a documented PRNG (mulberry32) and text mutators aimed at
 * what a hostile or careless writer produces — flipped and inserted bytes, truncation, deep nesting, huge
 * and non-finite numbers, NUL and control characters, bidi overrides and lone surrogates, duplicated keys
 * and lines, YAML anchors/aliases bombs and very long lines. Same seed, same inputs.
 *
 * @module
 */

import { mulberry32 } from "../src/tabular/prng.ts";

export type Rand = () => number;
export { mulberry32 };

export const pick = <T>(rand: Rand, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const int = (rand: Rand, n: number) => Math.floor(rand() * n);

/** Characters and fragments that break parsers and terminals. */
export const NASTY = [
  "\u0000",
  "\u0001",
  "\u0007",
  "\u0008",
  "\t",
  "\n",
  "\r",
  "\r\n",
  "\u000b",
  "\u001b[31m",
  "\u001b]0;x\u0007",
  "\u007f",
  "\u0085",
  "\u009b",
  "\u00a0",
  "\u2028",
  "\u202e",
  "\u2066",
  "\ufeff",
  "\ud800",
  "\udfff",
  "😀",
  "e\u0301",
  "\uffff",
  '"',
  "'",
  "\\",
  "{",
  "}",
  "[",
  "]",
  ",",
  ":",
  ": ",
  "- ",
  "#",
  "&",
  "*",
  "!",
  "|",
  ">",
  "%",
  "@",
  "`",
  "? ",
  "---",
  "...",
];

export const NUMBERS = [
  "0",
  "-0",
  "1e999",
  "-1e999",
  "1e308",
  "1e-400",
  "9007199254740993",
  "-9007199254740993",
  "1.5",
  "0x10",
  "0o7",
  "1_000",
  ".inf",
  "-.inf",
  ".nan",
  "NaN",
  "Infinity",
  "1e2",
  "00012",
  "+1",
  "123456789012345678901234567890",
];

/** The YAML "billion laughs": nine levels of nine aliases each (only resolving it would explode). */
export function aliasBomb(levels = 9): string {
  const lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"];
  for (let i = 1; i < levels; i++) {
    const prev = `*a${i - 1}`;
    lines.push(`a${i}: &a${i} [${Array(9).fill(prev).join(", ")}]`);
  }
  return lines.join("\n") + "\n";
}

type Mutator = (s: string, rand: Rand) => string;

const at = (s: string, rand: Rand) => int(rand, s.length + 1);

const MUTATORS: Record<string, Mutator> = {
  flip: (s, r) => {
    if (!s.length) return s;
    const i = int(r, s.length);
    return s.slice(0, i) + String.fromCharCode(int(r, 256)) + s.slice(i + 1);
  },
  nasty: (s, r) => {
    const i = at(s, r);
    return s.slice(0, i) + pick(r, NASTY) + s.slice(i);
  },
  remove: (s, r) => {
    const i = at(s, r);
    return s.slice(0, i) + s.slice(i + 1 + int(r, 20));
  },
  truncate: (s, r) => s.slice(0, at(s, r)),
  number: (s, r) => {
    const nums = [...s.matchAll(/-?\d+(\.\d+)?([eE][+-]?\d+)?/g)];
    if (!nums.length) return s + pick(r, NUMBERS);
    const m = pick(r, nums);
    return s.slice(0, m.index) + pick(r, NUMBERS) + s.slice(m.index! + m[0].length);
  },
  duplicateLine: (s, r) => {
    const lines = s.split("\n");
    const i = int(r, lines.length);
    lines.splice(i, 0, lines[i]!);
    return lines.join("\n");
  },
  swapLines: (s, r) => {
    const lines = s.split("\n");
    const i = int(r, lines.length);
    const j = int(r, lines.length);
    [lines[i], lines[j]] = [lines[j]!, lines[i]!];
    return lines.join("\n");
  },
  deleteLine: (s, r) => {
    const lines = s.split("\n");
    lines.splice(int(r, lines.length), 1);
    return lines.join("\n");
  },
  longLine: (s, r) => {
    const i = at(s, r);
    return s.slice(0, i) + pick(r, ["a", "9", " ", "é", "[", "\\"]).repeat(10_000 + int(r, 200_000)) +
      s.slice(i);
  },
  deepNest: (s, r) => {
    const i = at(s, r);
    const n = pick(r, [100, 1000, 50_000]);
    const [open, close] = pick(r, [["[", "]"], ["{", "}"], ['{"a":', "}"]]);
    return s.slice(0, i) + open!.repeat(n) + (r() < 0.5 ? close!.repeat(n) : "") + s.slice(i);
  },
  indentNest: (s, r) => {
    const i = at(s, r);
    const n = pick(r, [50, 500, 2000]);
    const nest = Array.from({ length: n }, (_, k) => " ".repeat(k) + "- ").join("\n");
    return s.slice(0, i) + "\n" + nest + "x\n" + s.slice(i);
  },
  aliases: (
    s,
    r,
  ) => (r() < 0.5 ? aliasBomb() + s : s.replace(/: (\S+)/, ": &x $1").replace(/(\n\s*\w+: )\S+/, "$1*x")),
  unicode: (s, r) => {
    const i = at(s, r);
    return s.slice(0, i) + pick(r, ["\u202eevil", "\u0000", "\ud83d", "😀".repeat(50), "\ufeff", "Ω≈ç√"]) +
      s.slice(i);
  },
  repeat: (s, r) => s.repeat(2 + int(r, 3)),
};

export const MUTATOR_NAMES = Object.keys(MUTATORS);
/** Mutators that make inputs of hundreds of kilobytes: chosen one time in ten, so a run stays quick. */
const HEAVY = new Set(["longLine", "deepNest", "indentNest", "repeat"]);
const LIGHT_NAMES = MUTATOR_NAMES.filter((n) => !HEAVY.has(n));
const HEAVY_NAMES = MUTATOR_NAMES.filter((n) => HEAVY.has(n));

/** `seed` after 1–4 random mutations (`heavy`: sometimes one making it huge); the names applied. */
export function mutate(seed: string, rand: Rand, heavy = true): { input: string; applied: string[] } {
  let s = seed;
  const applied: string[] = [];
  const n = 1 + int(rand, 4);
  for (let k = 0; k < n; k++) {
    const name = pick(rand, heavy && rand() < 0.1 ? HEAVY_NAMES : LIGHT_NAMES);
    s = MUTATORS[name]!(s, rand);
    applied.push(name);
  }
  return { input: s, applied };
}

/** A random JSON value of bounded size: the generated (not mutated) half of the JSON corpus. */
export function randomJson(rand: Rand, depth = 0): unknown {
  const k = rand();
  if (depth > 5 || k < 0.35) {
    return pick(rand, [
      0,
      -1,
      0.5,
      1e308,
      -1e-300,
      42,
      true,
      false,
      null,
      "",
      "x",
      "é\u0000",
      "\u202e",
      "1e999",
    ]);
  }
  if (k < 0.65) return Array.from({ length: int(rand, 5) }, () => randomJson(rand, depth + 1));
  return Object.fromEntries(
    Array.from(
      { length: int(rand, 5) },
      () => [pick(rand, ["step", "score", "node", "a", "", "__proto__"]), randomJson(rand, depth + 1)],
    ),
  );
}
