import { equal } from "node:assert/strict";
import { printable } from "./escape.ts";

Deno.test("printable() shows C0, DEL and C1 controls as escapes", () => {
  equal(printable("a\u001b[31mred\u001b[0m"), "a\\x1b[31mred\\x1b[0m");
  equal(printable("bell\u0007 nul\u0000 del\u007f csi\u009b"), "bell\\x07 nul\\x00 del\\x7f csi\\x9b");
  equal(printable("over\rwrite"), "over\\rwrite");
  equal(printable("title\u001b]0;pwned\u0007"), "title\\x1b]0;pwned\\x07");
});

Deno.test("printable() keeps newlines and tabs only where the caller allows them", () => {
  equal(printable("a\nb\tc"), "a\\nb\\tc");
  equal(printable("a\nb\tc", { newlines: true }), "a\nb\\tc");
  equal(printable("a\nb\tc", { newlines: true, tabs: true }), "a\nb\tc");
});

Deno.test("printable() shows bidi overrides, isolates and marks so text cannot be visually reordered", () => {
  equal(printable("evil\u202egnp.exe"), "evil\\u202egnp.exe");
  equal(printable("\u2066x\u2069\u200e\u200f\u061c\u2028"), "\\u2066x\\u2069\\u200e\\u200f\\u061c\\u2028");
});

Deno.test("printable() leaves ordinary text, unicode and emoji untouched", () => {
  const s = "N4/ckpt/stage-12.json — r² = 0.91 ✓ 😀 日本語 \\x1b";
  equal(printable(s), s);
});

Deno.test("printable() cuts long input at max characters without splitting a surrogate pair", () => {
  equal(printable("abcdef", { max: 4 }), "abc…");
  equal(printable("abc", { max: 4 }), "abc");
  equal(printable("a😀b", { max: 3 }), "a…");
  equal(printable("\u001b\u001b\u001b", { max: 2 }), "\\x1b…");
});
