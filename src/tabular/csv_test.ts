import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { CsvError, parseCsvText } from "./csv.ts";
import { mulberry32 } from "./prng.ts";
import { readTable } from "./read.ts";

function caught(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
}

function lineOf(f: () => unknown): number {
  const e = caught(f);
  if (e instanceof CsvError) return e.line;
  throw new Error(`expected a CsvError, got ${e}`);
}

Deno.test("parseCsvText() reads quoted commas, doubled quotes and newlines inside quotes", () => {
  const raw = parseCsvText('name,note\n"Smith, John","said ""hi"""\n"two\nlines",x\n', "f.csv");
  deepEqual(raw.header, ["name", "note"]);
  deepEqual(raw.rows, [["Smith, John", 'said "hi"'], ["two\nlines", "x"]]);
  deepEqual(raw.lines, [2, 3]);
});

Deno.test("parseCsvText() strips a BOM and accepts CRLF, CR and a missing final newline", () => {
  const raw = parseCsvText("\uFEFFa,b\r\n1,2\r3,4\r\n5,6", "f.csv");
  deepEqual(raw.header, ["a", "b"]);
  deepEqual(raw.rows, [["1", "2"], ["3", "4"], ["5", "6"]]);
  deepEqual(raw.lines, [2, 3, 4]);
});

Deno.test("parseCsvText() counts lines inside quoted cells when naming later rows", () => {
  const text = 'a,b\n"x\r\ny\nz",1\n1,2,3\n';
  equal(lineOf(() => parseCsvText(text, "f.csv")), 5);
  deepEqual(parseCsvText('a,b\n"x\r\ny",1\n', "f").rows[0], ["x\ny", "1"]);
});

Deno.test("parseCsvText() skips blank lines, trims unquoted cells, keeps a stray quote inside a cell", () => {
  const raw = parseCsvText('a,b\n\n 1 , 2 \n\nab"c,  "q" \n', "f.csv");
  deepEqual(raw.rows, [["1", "2"], ['ab"c', "q"]]);
  deepEqual(raw.lines, [3, 5]);
});

Deno.test("parseCsvText() names the file and line of each unreadable input", () => {
  const cases: [string, number, RegExp][] = [
    ["", 1, /empty/],
    ["\n\n", 1, /empty/],
    ["a,b\n", 2, /no data rows/],
    ["a,b\n1,2\n3\n", 3, /1 cells, but the header has 2/],
    ["a,b\n1,2\n3,4,5\n", 3, /3 cells/],
    ['a,b\n1,"2\n3,4\n', 2, /never closes/],
    ['a,b\n1,"2"x\n', 2, /follows a closing quote/],
    ["a,a\n1,2\n", 1, /"a" appears twice/],
    ["a,,c\n1,2,3\n", 1, /column 2 of the header has no name/],
  ];
  for (const [text, line, reason] of cases) {
    const e = caught(() => parseCsvText(text, "data/x.csv"));
    ok(e instanceof CsvError, JSON.stringify(text));
    equal(e.line, line, JSON.stringify(text));
    ok(reason.test(e.message), `${e.message} ~ ${reason}`);
    ok(e.message.startsWith(`data/x.csv:${line}: Cannot read the CSV: `), e.message);
  }
});

Deno.test("parseCsvText() refuses input past its limits with a CsvError", () => {
  throws(() => parseCsvText("a\n1\n", "f", { limits: { maxChars: 3 } }), CsvError);
  throws(() => parseCsvText("a,b,c\n1,2,3\n", "f", { limits: { maxColumns: 2 } }), /more than 2 cells/);
  throws(() => parseCsvText("a\n1\n2\n3\n", "f", { limits: { maxRows: 2 } }), /more than 2 data rows/);
  throws(() => parseCsvText("a,b\n1,2\n3,4\n", "f", { limits: { maxCells: 3 } }), /more than 3 cells/);
  throws(() => parseCsvText('a\n"12345"\n', "f", { limits: { maxCellChars: 4 } }), /longer than 4/);
  throws(() => parseCsvText("a\n123456\n", "f", { limits: { maxCellChars: 4 } }), /longer than 4/);
});

Deno.test("parseCsvText() reads another delimiter and refuses an unusable one", () => {
  deepEqual(parseCsvText("a;b\n1,5;2\n", "f", { delimiter: ";" }).rows, [["1,5", "2"]]);
  deepEqual(parseCsvText("a\tb\n1\t\n", "f", { delimiter: "\t" }).rows, [["1", ""]]);
  throws(() => parseCsvText("a\n", "f", { delimiter: '"' }), RangeError);
});

Deno.test("parseCsvText() and readTable() on 400 seeded mutations read or throw a CsvError, nothing else", () => {
  const base =
    'id,name,age,"note, free"\n1,"Braund, Mr. Owen",22,"a ""b"""\n2,Heikkinen,,"x\ny"\r\n3,Allen,35,NA\n';
  const pieces = ['"', ",", "\n", "\r", '""', "\uFEFF", " ", "x", "\r\n", "\u0000"];
  const rng = mulberry32(12);
  let read = 0, rejected = 0;
  for (let t = 0; t < 400; t++) {
    let s = base;
    const edits = 1 + Math.floor(rng() * 4);
    for (let e = 0; e < edits; e++) {
      const at = Math.floor(rng() * (s.length + 1));
      const op = rng();
      if (op < 0.4) s = s.slice(0, at) + pieces[Math.floor(rng() * pieces.length)]! + s.slice(at);
      else if (op < 0.8) s = s.slice(0, at) + s.slice(at + 1 + Math.floor(rng() * 3));
      else s = s.slice(0, at);
    }
    try {
      const raw = parseCsvText(s, "fuzz.csv");
      for (const r of raw.rows) equal(r.length, raw.header.length);
      equal(readTable(s, "fuzz.csv").nRows, raw.rows.length);
      read++;
    } catch (e) {
      ok(e instanceof CsvError, `input ${JSON.stringify(s)} threw ${e}`);
      ok(/^fuzz\.csv(:\d+)?: Cannot read the CSV: /.test(e.message), e.message);
      rejected++;
    }
  }
  ok(read > 20 && rejected > 20, `read ${read}, rejected ${rejected}`);
});

Deno.test("parseCsvText() sets row names aside: an unnamed first column (write.csv, to_csv) or a header one short (write.table)", () => {
  const r = parseCsvText('"","a","b"\n"1",2,x\n"2",3,y\n', "r.csv");
  deepEqual(r.header, ["a", "b"]);
  deepEqual(r.rows, [["2", "x"], ["3", "y"]]);
  deepEqual(r.rowNames, { form: "unnamed", labels: ["1", "2"] });
  const p = parseCsvText(",a\n0,5\n1,6\n2,7\n", "p.csv");
  deepEqual([p.header, p.rows.length, p.rowNames?.labels.at(-1)], [["a"], 3, "2"]);
  const t = parseCsvText('"a" "b"\n"Mazda RX4" 21 6\n"Datsun 710" 22.8 4\n', "t.csv", { delimiter: " " });
  deepEqual([t.header, t.rows, t.rowNames?.form], [["a", "b"], [["21", "6"], ["22.8", "4"]], "headerless"]);
  equal(parseCsvText("a,b\n1,2\n", "plain.csv").rowNames, undefined, "a plain file has none");

  const cases: [string, number, RegExp][] = [
    // A first column that repeats is data without a name, not row names.
    [
      ",a\nx,1\ny,2\nx,3\n",
      4,
      /column 1 of the header has no name, and that first column repeats "x" \(lines 2 and 4\)/,
    ],
    ["a\nk,1\nk,2\n", 3, /the header has one name fewer than the rows, and that first column repeats "k"/],
    [",,c\n1,2,3\n", 1, /column 2 of the header has no name/],
    ["a,b\n1,2,\n3,4,\n", 2, /this row has 3 cells, but the header has 2 columns/],
    [",a,b\n1,2,3\n2,3\n", 3, /this row has 2 cells, but the header has 3 \(row names, then 2 columns\)/],
    [
      "a,b\n1,2,3\n4,5\n",
      3,
      /this row has 2 cells, but the first row \(line 2\) has 3, one more than the header/,
    ],
  ];
  for (const [text, line, reason] of cases) {
    const e = caught(() => parseCsvText(text, "x.csv"));
    ok(e instanceof CsvError, JSON.stringify(text));
    equal(e.line, line, `${JSON.stringify(text)}: ${e.message}`);
    ok(reason.test(e.message), `${e.message} ~ ${reason}`);
  }
});

Deno.test("parseCsvText(): Excel's first line sep=; declares the delimiter; lines keep their file numbers", () => {
  const raw = parseCsvText("sep=;\r\na;b\r\n1;2\r\n3;4\r\n", "x.csv");
  deepEqual(raw.header, ["a", "b"]);
  deepEqual(raw.rows, [["1", "2"], ["3", "4"]]);
  deepEqual(raw.lines, [3, 4], "the header is line 2, the rows 3 and 4");
  equal(raw.declared, ";");
  // After a byte-order mark too, and it agrees with a caller who says the same (or leaves the comma default).
  equal(parseCsvText("\ufeffsep=|\na|b\n1|2\n", "y.csv", { delimiter: "," }).declared, "|");
  equal(parseCsvText("sep=;\na;b\n1;2\n", "y.csv", { delimiter: ";" }).rows[0]![1], "2");
  // A bad row is named by its line in the file, the sep line counted.
  throws(() => parseCsvText("sep=;\na;b\n1;2\n3;4;5\n", "z.csv"), /z\.csv:4: /);
  // A caller who said another delimiter is told the file disagrees, at line 1.
  throws(
    () => parseCsvText("sep=;\na;b\n", "w.csv", { delimiter: "\t" }),
    /w\.csv:1: .*declares sep=;, but it was to be read with "\\t"/,
  );
  // "sep=" in a header of a comma file is a column name, not a declaration.
  deepEqual(parseCsvText("sep=x,b\n1,2\n", "v.csv").header, ["sep=x", "b"]);
});
