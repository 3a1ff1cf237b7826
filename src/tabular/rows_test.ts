import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { readTable } from "./read.ts";
import { fromRows, inferSchema, type Row, toRows } from "./rows.ts";
import { describeTable, takeRows } from "./table.ts";

Deno.test("inferSchema() types transform output by its values; NaN, Infinity and undefined are missing", () => {
  const rows = [
    { a: 1, b: true, c: "x", d: "2.5", e: null },
    { a: NaN, b: false, c: "y", d: "3", e: Infinity },
    { a: 3, c: 4, f: "late" },
  ] as unknown as Row[];
  deepEqual(inferSchema(rows).columns, [
    { name: "a", kind: "numeric" },
    { name: "b", kind: "boolean" },
    { name: "c", kind: "categorical" },
    { name: "d", kind: "numeric" },
    { name: "e", kind: "numeric" },
    { name: "f", kind: "categorical" },
  ]);
  const t = fromRows(rows, inferSchema(rows));
  deepEqual(describeTable(t).map((c) => c.missing), [1, 1, 0, 1, 3, 2]);
});

Deno.test("inferSchema() refuses values that are not cells", () => {
  throws(
    () => inferSchema([{ a: { nested: 1 } }] as unknown as Row[], "the output"),
    /row 0, column "a" holds a value of type object/,
  );
  throws(() => inferSchema([7] as unknown as Row[]), /row 0 is not an object/);
});

Deno.test("toRows() and fromRows() round-trip a table's values, leaving out omitted columns", () => {
  const t = readTable("n,b,c\n1,yes,u\n,no,\n2.5,,v\n", "f.csv");
  const rows = toRows(t, Int32Array.of(2, 0, 1));
  deepEqual(rows[0], { n: 2.5, b: null, c: "v" });
  deepEqual(toRows(t, [0], ["b"]), [{ n: 1, c: "u" }]);
  const back = fromRows(rows, inferSchema(rows));
  deepEqual(toRows(back, [0, 1, 2]), rows);
  deepEqual(toRows(takeRows(t, [1]), [0]), [{ n: null, b: false, c: null }]);
  equal(describeTable(t)[2]!.levels, 2);
  ok(fromRows([{ n: "7" }], { columns: [{ name: "n", kind: "numeric" }] }).columns[0]!.kind === "numeric");
});
