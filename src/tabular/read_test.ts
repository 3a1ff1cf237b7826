import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { CsvError } from "./csv.ts";
import { inferKind } from "./infer.ts";
import { readCsvFile, readTable } from "./read.ts";
import { getColumn, type Table } from "./table.ts";
import { writeCsv } from "./write.ts";

const kinds = (t: Table) => Object.fromEntries(t.columns.map((c) => [c.name, c.kind]));

Deno.test("readTable() infers numeric, boolean, categorical and free-text columns", () => {
  const names = Array.from({ length: 24 }, (_, i) => `"Passenger ${i}, Mr. X${i}"`);
  const text = "age,alive,port,name,cabin\n" +
    names.map((n, i) => `${i % 5 === 0 ? "" : 20 + i},${i % 2 ? "yes" : "No"},${"SCQ"[i % 3]},${n},C${i}`)
      .join("\n");
  const t = readTable(text, "t.csv");
  deepEqual(kinds(t), {
    age: "numeric",
    alive: "boolean",
    port: "categorical",
    name: "text",
    cabin: "categorical",
  });
  const age = getColumn(t, "age");
  ok(age.kind === "numeric" && Number.isNaN(age.values[0]!) && age.values[1] === 21);
  const alive = getColumn(t, "alive");
  ok(alive.kind === "boolean");
  deepEqual(Array.from(alive.values.slice(0, 3)), [0, 1, 0]);
  const port = getColumn(t, "port");
  ok(port.kind === "categorical");
  deepEqual(port.levels, ["C", "Q", "S"]);
  deepEqual(Array.from(port.codes.slice(0, 3)), [2, 0, 1]);
});

Deno.test("readTable() treats the documented markers as missing, case-sensitively", () => {
  const markers = [
    "",
    "NA",
    "N/A",
    "n/a",
    "NaN",
    "nan",
    "null",
    "NULL",
    "None",
    "?",
    "#N/A",
    "<NA>",
    '"NA"',
    '" NA "',
  ];
  const t = readTable("x,y\n" + markers.map((m, i) => `${m},${i}`).join("\n") + "\n1.5,99\n", "m.csv");
  const x = getColumn(t, "x");
  ok(x.kind === "numeric");
  equal(Array.from(x.values).filter(Number.isNaN).length, markers.length);
  const levels = readTable("c\nnone\nna\nNone\nyes please\n", "c.csv");
  const c = getColumn(levels, "c");
  ok(c.kind === "categorical");
  deepEqual(c.levels, ["na", "none", "yes please"]);
  equal(Array.from(c.codes).filter((k) => k < 0).length, 1);
});

Deno.test("inferKind() keeps 1/0 numeric, t/f boolean, and an all-missing column numeric", () => {
  equal(inferKind(["1", "0", null]), "numeric");
  equal(inferKind(["t", "F", "TRUE", null]), "boolean");
  equal(inferKind([null, null]), "numeric");
  equal(inferKind(["1e3", "-.5", "+2"]), "numeric");
  equal(inferKind(["1,000", "2"]), "categorical");
  equal(inferKind(["Infinity", "1"]), "categorical");
  equal(inferKind(["x".repeat(45)]), "text");
});

Deno.test("readTable() forces a kind and names the line of a cell that does not fit", () => {
  const t = readTable("cls,v\n1,a\n2,b\n", "f.csv", { types: { cls: "categorical" } });
  equal(getColumn(t, "cls").kind, "categorical");
  throws(
    () => readTable("v\n1\n\n2\nx\n", "f.csv", { types: { v: "numeric" } }),
    (e) => e instanceof CsvError && e.line === 5 && /"v" is numeric, but holds "x"/.test(e.message),
  );
  throws(() => readTable("v\n1\n", "f.csv", { types: { w: "numeric" } }), /no such column/);
});

Deno.test("readTable() takes a replacement list of missing markers", () => {
  const t = readTable("v\n-1\nNA\n3\n", "f.csv", { missing: ["-1"] });
  const v = getColumn(t, "v");
  ok(v.kind === "categorical", "NA is a value once the list is replaced");
  equal(v.codes[0], -1);
});

Deno.test("writeCsv() output reads back to the same kinds and values", () => {
  const text = 'a,b,c,d\n1.25,"x, y",true,\n,"say ""hi""",false,z\n-3e-7, lead,,z\n';
  const t = readTable(text, "f.csv");
  const back = readTable(writeCsv(t), "g.csv");
  deepEqual(kinds(back), kinds(t));
  deepEqual(writeCsv(back), writeCsv(t));
  const a = getColumn(back, "a");
  ok(a.kind === "numeric" && a.values[2] === -3e-7);
});

Deno.test("readCsvFile() reports a missing file and non-UTF-8 bytes as CsvErrors for that file", () => {
  const dir = Deno.makeTempDirSync();
  try {
    throws(
      () => readCsvFile(`${dir}/none.csv`),
      (e) => e instanceof CsvError && /no such file/.test(e.message),
    );
    Deno.writeFileSync(`${dir}/bad.csv`, new Uint8Array([0x61, 0x0a, 0xff, 0xfe, 0x0a]));
    throws(() => readCsvFile(`${dir}/bad.csv`), /bad\.csv: Cannot read the CSV: it is not valid UTF-8/);
    Deno.writeTextFileSync(`${dir}/ok.csv`, "a,b\n1,x\n");
    equal(readCsvFile(`${dir}/ok.csv`).nRows, 1);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
