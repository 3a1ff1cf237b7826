import { deepEqual as assertEquals } from "node:assert/strict";
import { cells, parseInline, parseMarkdown } from "./markdown.ts";

Deno.test("parseInline() splits strong and code and keeps markup-looking text as text", () => {
  assertEquals(parseInline("a **b** `c` <img src=x onerror=alert(1)>"), [
    { t: "text", v: "a " },
    { t: "strong", v: "b" },
    { t: "text", v: " " },
    { t: "code", v: "c" },
    { t: "text", v: " <img src=x onerror=alert(1)>" },
  ]);
});

Deno.test("cells() honours escaped pipes", () => {
  assertEquals(cells("| a | b \\| c | d |"), ["a", "b | c", "d"]);
});

Deno.test("parseMarkdown() reads the shapes the anytime report uses", () => {
  const md = [
    "# Anytime report — x",
    "",
    "Version 3, tick 9.",
    "continued",
    "",
    "| node | score |",
    "|---|---|",
    "| N3 | 0.6041 |",
    "",
    '- tick 9 SCOPE_VIOLATION on N4: paths=["<script>"]',
    "- second",
    "```",
    "<b>raw</b>",
    "```",
  ].join("\n");
  assertEquals(parseMarkdown(md), [
    { t: "h", level: 1, body: [{ t: "text", v: "Anytime report — x" }] },
    { t: "p", body: [{ t: "text", v: "Version 3, tick 9. continued" }] },
    {
      t: "table",
      head: [[{ t: "text", v: "node" }], [{ t: "text", v: "score" }]],
      rows: [[[{ t: "text", v: "N3" }], [{ t: "text", v: "0.6041" }]]],
    },
    {
      t: "ul",
      items: [[{ t: "text", v: 'tick 9 SCOPE_VIOLATION on N4: paths=["<script>"]' }], [{
        t: "text",
        v: "second",
      }]],
    },
    { t: "pre", v: "<b>raw</b>" },
  ]);
});

Deno.test("parseMarkdown() never loops on odd input", () => {
  for (const md of ["|", "| a |", "#", "-", "```", "**", "|---|", "# \n|x|\n|---|"]) parseMarkdown(md);
});
