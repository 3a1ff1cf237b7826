import { deepEqual, equal } from "node:assert/strict";
import { fileMapOf, SizeView, tableOf } from "./fingerprint_table.ts";

const H = "a".repeat(64);
const G = "b".repeat(64);

Deno.test("tableOf() sorts by UTF-16 code units, as Array.prototype.sort() does", () => {
  const names = ["z", "é", "😀", "ｚ", "10", "9", "a/b", "a-b", "__proto__"];
  const t = tableOf(names.map((n) => [n, { v: H, n: 1 }]));
  deepEqual([...t.paths], [...names].sort());
  for (const n of names) equal(t.get(n), H, n);
  equal(t.indexOf("missing"), -1);
});

Deno.test("FileTable.indexOf() finds every path in any order of lookups", () => {
  const paths = Array.from({ length: 500 }, (_, i) => `d${i % 7}/f${i}`);
  const t = tableOf(paths.map((p, i) => [p, { v: i % 2 ? H : G, n: i }]));
  for (const p of [...paths].reverse()) equal(t.rec(p)?.n, paths.indexOf(p));
  for (const p of [...paths].sort()) equal(t.has(p), true);
});

Deno.test("fileMapOf() reads like the plain-object record: keys, in, entries; nothing can be written", () => {
  const t = tableOf([["b", { v: H, n: 3 }], ["a", { v: "link:" + G, n: 0 }], ["__proto__", { v: G, n: 1 }]]);
  const m = fileMapOf(t);
  deepEqual(Object.keys(m), ["__proto__", "a", "b"]);
  deepEqual(m.b, { v: H, n: 3 });
  equal("a" in m, true);
  equal("c" in m, false);
  equal(m.constructor, undefined, "no inherited member reads as an entry");
  deepEqual(m["__proto__"], { v: G, n: 1 });
  equal(Reflect.set(m, "c", { v: H, n: 1 }), false);
  equal(fileMapOf(t), m, "one view per table");
});

Deno.test("SizeView.get() gives sizes of regular files only", () => {
  const t = tableOf([["f", { v: H, n: 7 }], ["l", { v: "link:" + H, n: 0 }], ["p", {
    v: "special:fifo",
    n: 0,
  }]]);
  const s = new SizeView(t);
  equal(s.get("f"), 7);
  equal(s.get("l"), undefined);
  equal(s.has("p"), false);
});
