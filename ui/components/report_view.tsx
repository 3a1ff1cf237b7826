/// <reference lib="dom" />
/**
 * The anytime report as it stood at the player's tick, rendered from markdown blocks into elements. Every
 * string becomes a text node; nothing is ever parsed as HTML.
 *
 * @module
 */
import type { Block, Inline } from "../lib/markdown.ts";
import { parseMarkdown } from "../lib/markdown.ts";
import type { ViewModel } from "../models/view_model.ts";

function inlines(xs: Inline[]) {
  return xs.map((x, k) =>
    x.t === "strong" ? <strong key={k}>{x.v}</strong> : x.t === "code" ? <code key={k}>{x.v}</code> : x.v
  );
}

function block(b: Block, k: number) {
  switch (b.t) {
    case "h": {
      const level = Math.min(6, b.level + 2);
      const H = `h${level}` as "h3";
      return <H key={k}>{inlines(b.body)}</H>;
    }
    case "p":
      return <p key={k}>{inlines(b.body)}</p>;
    case "ul":
      return <ul key={k}>{b.items.map((it, j) => <li key={j}>{inlines(it)}</li>)}</ul>;
    case "pre":
      return <pre key={k}>{b.v}</pre>;
    case "table":
      return (
        <table key={k}>
          <thead>
            <tr>{b.head.map((c, j) => <th key={j}>{inlines(c)}</th>)}</tr>
          </thead>
          <tbody>
            {b.rows.map((r, j) => <tr key={j}>{r.map((c, m) => <td key={m}>{inlines(c)}</td>)}</tr>)}
          </tbody>
        </table>
      );
  }
}

export function ReportView({ view }: { view: ViewModel }) {
  const md = view.report.value;
  return <article class="report" aria-label="Anytime report">{parseMarkdown(md).map(block)}</article>;
}
