import { deepEqual, notStrictEqual } from "node:assert/strict";
import { copyJson } from "./copy.ts";

Deno.test("copyJson() copies JSON data deeply: equal, and sharing no object or array", () => {
  const v = { a: [1, { b: "x", c: [null, true] }], d: { e: { f: 2.5 } }, g: "s", h: 0 };
  const c = copyJson(v);
  deepEqual(c, v);
  notStrictEqual(c.a, v.a);
  notStrictEqual(c.a[1], v.a[1]);
  notStrictEqual(c.d.e, v.d.e);
  (c.a[1] as { c: unknown[] }).c.push(1);
  deepEqual((v.a[1] as { c: unknown[] }).c, [null, true]);
  deepEqual(copyJson(null), null);
  deepEqual(copyJson([[]]), [[]]);
});
