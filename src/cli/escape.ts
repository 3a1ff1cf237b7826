/**
 * Terminal-safe text: `printable()` makes control characters and bidirectional overrides visible as
 * escapes, so a file name or evidence string written by a worker can never move the cursor, recolour,
 * retitle or rewrite the user's terminal, or reorder what the user reads.
 *
 * @module
 */

export interface PrintableOptions {
  /** Keep `\n` as a line break (multi-line evidence); otherwise it shows as `\n`. */
  newlines?: boolean;
  /** Keep `\t` as a tab; otherwise it shows as `\t`. */
  tabs?: boolean;
  /** Keep at most this many characters of `s` (before escaping), marking the cut with `…`. */
  max?: number;
}

/**
 * C0 controls (ESC, CR, BEL, backspace …), DEL, C1 controls (CSI U+009B starts an escape sequence on some
 * terminals), the bidi embeddings, overrides and isolates, the implicit marks, and the Unicode line and
 * paragraph separators.
 */
// deno-lint-ignore no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { "\n": "\\n", "\t": "\\t", "\r": "\\r" };

/** `s` with every unsafe character replaced by a visible escape (`\x1b`, `\r`, `\u202e`). */
export function printable(s: string, opts: PrintableOptions = {}): string {
  const cut = opts.max !== undefined && s.length > opts.max ? s.slice(0, Math.max(0, opts.max - 1)) : s;
  // Cutting between the halves of a surrogate pair would leave half a character.
  const whole = cut !== s && /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
  UNSAFE.lastIndex = 0;
  const safe = UNSAFE.test(whole) ? whole.replace(UNSAFE, (c) => escapeOne(c, opts)) : whole;
  return cut === s ? safe : safe + "…";
}

function escapeOne(c: string, opts: PrintableOptions): string {
  if (c === "\n" && opts.newlines) return c;
  if (c === "\t" && opts.tabs) return c;
  const named = NAMED[c];
  if (named) return named;
  const code = c.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}
