/**
 * A small markdown reader for the anytime report: headings, paragraphs, bullet lists, pipe tables, code
 * fences, `**strong**` and `` `code` ``. It yields a tree of blocks holding plain strings, never HTML, so
 * whatever an agent put in its evidence can only ever be shown as text.
 *
 * @module
 */

export type Inline =
  | { t: "text"; v: string }
  | { t: "strong"; v: string }
  | { t: "code"; v: string };

export type Block =
  | { t: "h"; level: number; body: Inline[] }
  | { t: "p"; body: Inline[] }
  | { t: "ul"; items: Inline[][] }
  | { t: "table"; head: Inline[][]; rows: Inline[][][] }
  | { t: "pre"; v: string };

/** Splits `**strong**` and `` `code` `` out of a line; everything else stays text. */
export function parseInline(s: string): Inline[] {
  const out: Inline[] = [];
  const re = /\*\*(.+?)\*\*|`([^`]+)`/g;
  let last = 0;
  // A backslash before ASCII punctuation is an escape (the report escapes text so it cannot forge markup).
  const text = (v: string) => v.replace(/\\([!-\/:-@[-`{-~])/g, "$1");
  for (const m of s.matchAll(re)) {
    if (m.index > last) out.push({ t: "text", v: text(s.slice(last, m.index)) });
    if (m[1] !== undefined) out.push({ t: "strong", v: text(m[1]) });
    else out.push({ t: "code", v: m[2]! });
    last = m.index + m[0].length;
  }
  if (last < s.length) out.push({ t: "text", v: text(s.slice(last)) });
  return out;
}

/** Cells of a pipe-table row; `\|` is a literal pipe inside a cell. */
export function cells(row: string): string[] {
  const inner = row.trim().replace(/^\|/, "").replace(/(?<!\\)\|$/, "");
  return inner.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, "|"));
}

const isRule = (l: string) => /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(l);

export function parseMarkdown(md: string): Block[] {
  const lines = md.replace(/\r\n?/g, "\n").split("\n");
  const out: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === "") {
      i++;
      continue;
    }
    if (line.startsWith("```")) {
      const body: string[] = [];
      for (i++; i < lines.length && !lines[i]!.startsWith("```"); i++) body.push(lines[i]!);
      i++;
      out.push({ t: "pre", v: body.join("\n") });
      continue;
    }
    const h = /^(#{1,6})\s+(.*)$/.exec(line);
    if (h) {
      out.push({ t: "h", level: h[1]!.length, body: parseInline(h[2]!) });
      i++;
      continue;
    }
    if (line.trimStart().startsWith("|") && i + 1 < lines.length && isRule(lines[i + 1]!)) {
      const head = cells(line).map(parseInline);
      const rows: Inline[][][] = [];
      for (i += 2; i < lines.length && lines[i]!.trimStart().startsWith("|"); i++) {
        rows.push(cells(lines[i]!).map(parseInline));
      }
      out.push({ t: "table", head, rows });
      continue;
    }
    if (/^\s*[-*]\s+/.test(line)) {
      const items: Inline[][] = [];
      for (; i < lines.length && /^\s*[-*]\s+/.test(lines[i]!); i++) {
        items.push(parseInline(lines[i]!.replace(/^\s*[-*]\s+/, "")));
      }
      out.push({ t: "ul", items });
      continue;
    }
    const para: string[] = [line.trim()];
    for (i++; i < lines.length && lines[i]!.trim() !== "" && !startsBlock(lines, i); i++) {
      para.push(lines[i]!.trim());
    }
    out.push({ t: "p", body: parseInline(para.join(" ")) });
  }
  return out;
}

function startsBlock(lines: readonly string[], i: number): boolean {
  const l = lines[i]!;
  return l.startsWith("```") || /^#{1,6}\s/.test(l) || /^\s*[-*]\s+/.test(l) ||
    (l.trimStart().startsWith("|") && i + 1 < lines.length && isRule(lines[i + 1]!));
}
