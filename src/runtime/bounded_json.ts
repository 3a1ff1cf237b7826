/**
 * JSON from untrusted writers (worker manifests, metrics lines): size and nesting depth are checked before
 * `JSON.parse` sees the text, and numbers that overflow to ±Infinity are refused by their JSON path, so no
 * input can exhaust the stack or memory of a later `structuredClone`, `JSON.stringify` or tree walk.
 *
 * @module
 */

export interface JsonLimits {
  /** Largest accepted input, in UTF-8 bytes. */
  maxBytes: number;
  /** Deepest accepted nesting of arrays and objects; the top-level container is depth 1. */
  maxDepth: number;
}

export type Bounded<T = unknown> = { ok: true; value: T } | { ok: false; error: string };

const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Parses `input` (text, or bytes that must be UTF-8) within `limits`; never throws. */
export function parseBounded(input: string | Uint8Array, limits: JsonLimits): Bounded {
  let text: string;
  if (typeof input === "string") {
    if (exceedsBytes(input, limits.maxBytes)) return tooLarge(limits.maxBytes);
    text = input;
  } else {
    if (input.length > limits.maxBytes) return tooLarge(limits.maxBytes);
    try {
      text = strict.decode(input);
    } catch {
      return { ok: false, error: "Cannot parse JSON: the input is not valid UTF-8" };
    }
  }
  const scanned = scan(text, limits.maxDepth);
  if (scanned.tooDeepAt >= 0) {
    const { line, col } = lineCol(text, scanned.tooDeepAt);
    return {
      ok: false,
      error:
        `Cannot parse JSON: nesting deeper than ${limits.maxDepth} levels at line ${line}, column ${col}`,
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `Cannot parse JSON: ${quiet((e as Error).message)}` };
  }
  const bad = scanned.bigNumber ? nonFinitePath(value) : null;
  if (bad !== null) {
    return {
      ok: false,
      error: `Cannot parse JSON: the number at ${bad} is out of range (it would read as Infinity)`,
    };
  }
  return { ok: true, value };
}

function tooLarge(max: number): Bounded {
  return { ok: false, error: `Cannot parse JSON: the input is larger than the limit of ${max} bytes` };
}

/** Whether `s` takes more than `cap` bytes as UTF-8, counted without encoding it. */
export function exceedsBytes(s: string, cap: number): boolean {
  // Every UTF-16 unit is at least one byte and at most three.
  if (s.length > cap) return true;
  if (s.length * 3 <= cap) return false;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
    if (n > cap) return true;
  }
  return false;
}

interface Scan {
  /** Offset of the first bracket that opens level `maxDepth + 1`, or -1. */
  tooDeepAt: number;
  /** A number with an exponent or 300+ digits was seen: only such a number can overflow. */
  bigNumber: boolean;
}

/** One pass over the text outside strings: nesting depth, and whether any number could overflow. */
function scan(text: string, maxDepth: number): Scan {
  let depth = 0;
  let digits = 0;
  let bigNumber = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) {
      if (++digits >= 300) bigNumber = true;
      continue;
    }
    if ((c === 0x65 || c === 0x45) && digits > 0) bigNumber = true;
    digits = 0;
    if (c === QUOTE) {
      // Skip to the closing quote; a backslash always escapes exactly the next unit.
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > maxDepth) return { tooDeepAt: i, bigNumber };
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      depth--;
    }
  }
  return { tooDeepAt: -1, bigNumber };
}

function lineCol(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, col: offset - start + 1 };
}

interface Frame {
  v: object;
  parent: Frame | null;
  key: string | number;
}

/** The JSON path of the first non-finite number in `value`, walked without recursion. */
function nonFinitePath(value: unknown): string | null {
  if (typeof value === "number") return Number.isFinite(value) ? null : "$";
  if (value === null || typeof value !== "object") return null;
  // Paths are built only for the culprit, so a clean walk allocates one small frame per container.
  const stack: Frame[] = [{ v: value, parent: null, key: "" }];
  while (stack.length) {
    const f = stack.pop()!;
    const visit = (k: string | number, x: unknown): string | null => {
      if (typeof x === "number") {
        if (!Number.isFinite(x)) return pathOf({ v: f.v, parent: f, key: k });
      } else if (x !== null && typeof x === "object") stack.push({ v: x, parent: f, key: k });
      return null;
    };
    if (Array.isArray(f.v)) {
      for (let i = 0; i < f.v.length; i++) {
        const p = visit(i, f.v[i]);
        if (p) return p;
      }
    } else {
      const o = f.v as Record<string, unknown>;
      for (const k of Object.keys(o)) {
        const p = visit(k, o[k]);
        if (p) return p;
      }
    }
  }
  return null;
}

function pathOf(frame: Frame): string {
  const parts: string[] = [];
  for (let f: Frame | null = frame; f && f.parent; f = f.parent) {
    const k = f.key;
    if (typeof k === "number") parts.push(`[${k}]`);
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) parts.push(`.${k}`);
    else parts.push(`[${quiet(JSON.stringify(k.length > 64 ? k.slice(0, 64) + "…" : k))}]`);
  }
  return "$" + parts.reverse().join("");
}

/** Controls, line separators and bidi overrides: what a quoted snippet must not carry to a terminal. */
// deno-lint-ignore no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** V8 quotes a snippet of the input in some messages: escape what it must not carry. */
function quiet(message: string): string {
  return message.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
