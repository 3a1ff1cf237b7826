/**
 * Markdown-safe text for the anytime report: plan questions, titles and worker evidence are written so they
 * can only ever read as text — never a heading, list, table row, code fence, link, image, HTML or entity —
 * in CommonMark/GFM renderers and in the dashboard's own reader alike.
 *
 * @module
 */

/** Characters that start inline markup anywhere on a line (links, emphasis, code, HTML, entities, cells). */
const INLINE = /[\\`*_[\]<>|~&]/g;

/** Line breaks of every kind, including the ones a renderer might honour and a terminal would not show. */
const BREAKS = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/g;

/** Controls and bidi overrides, shown as escapes: they could hide or visually reorder the verdict. */
const HIDDEN =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u0008\u000e-\u001f\u007f-\u0084\u0086-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * A line start that opens a block: ATX heading, block quote, bullet or ordered list item, setext underline
 * or thematic break, table delimiter row, or `:` of a definition list in some dialects.
 */
const BLOCK_START = /^(?:[#>+=:-]|\d{1,9}[.)](?=\s|$))/;

export interface MdOptions {
  /** Keep at most this many characters of the input, marking the cut with `…`. */
  max?: number;
}

/** `s` as one line of plain text, for a table cell, list item, heading or sentence. */
export function mdInline(s: string, opts: MdOptions = {}): string {
  const text = cap(s, opts.max).replace(BREAKS, " ").replace(/[ \t]+/g, " ").trim();
  return escapeLine(text);
}

/**
 * `s` as a plain-text paragraph whose line breaks are kept: no line of it can open a block, and runs of
 * blank lines shrink to one. Put it at the top level of the report; inside a list or table use mdInline.
 */
export function mdText(s: string, opts: MdOptions = {}): string {
  const lines = cap(s, opts.max).replace(BREAKS, "\n").split("\n").map((l) =>
    escapeLine(l.replace(/[ \t]+/g, " ").trim())
  );
  const out: string[] = [];
  for (const l of lines) if (l !== "" || (out.length && out.at(-1) !== "")) out.push(l);
  while (out.at(-1) === "") out.pop();
  return out.join("\n");
}

function escapeLine(line: string): string {
  const inline = line.replace(INLINE, "\\$&").replace(HIDDEN, hidden);
  const m = BLOCK_START.exec(inline);
  if (!m) return inline;
  // Escape the punctuation that makes the block: "#" → "\#", "1." → "1\.".
  const at = m[0].length - 1;
  return inline.slice(0, at) + "\\" + inline.slice(at);
}

function hidden(c: string): string {
  const code = c.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

function cap(s: string, max: number | undefined): string {
  if (max === undefined || s.length <= max) return s;
  let cut = s.slice(0, Math.max(0, max - 1));
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  return cut + "…";
}
