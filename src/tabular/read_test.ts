import { deepEqual, equal, match, ok, throws } from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { CsvError } from "./csv.ts";
import { decimalComma, formatted, inferKind, isFormatted, parseNumber } from "./infer.ts";
import {
  decimalsNote,
  decodeUtf8,
  formatsNote,
  invalidUtf8,
  isGzip,
  readCsvFile,
  readTable,
  unpack,
  utf16Bom,
} from "./read.ts";
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
  equal(inferKind(["1,000", "2"]), "numeric", "a thousands comma");
  equal(inferKind(["1,00", "2"]), "categorical", "a comma not before three digits");
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
    throws(
      () => readCsvFile(`${dir}/bad.csv`),
      /bad\.csv:2: Cannot read the CSV: it is not valid UTF-8 text: byte 0xFF at column 1 .*iconv/,
    );
    Deno.writeTextFileSync(`${dir}/ok.csv`, "a,b\n1,x\n");
    equal(readCsvFile(`${dir}/ok.csv`).nRows, 1);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("writeCsv(): a row that is one missing cell reads back as a row, not a skipped blank line", () => {
  const t = readTable('x\n1\n""\n3\n', "one.csv");
  equal(t.nRows, 3, "a quoted empty cell is a row");
  const back = readTable(writeCsv(t), "back.csv");
  equal(back.nRows, 3);
  const x = getColumn(back, "x");
  ok(x.kind === "numeric" && Number.isNaN(x.values[1]!) && x.values[2] === 3);
});

Deno.test("readTable(): a numeric column with a few stray texts is numeric, its strays missing and listed", () => {
  const nums = Array.from({ length: 60 }, (_, i) => String(i * 0.5));
  // Rows 4, 9 and 20 (file lines 6, 11, 22) hold inf, -inf and unknown: 3 of 60, 3 distinct texts.
  nums[4] = "inf", nums[9] = "-inf", nums[20] = " unknown";
  const t = readTable("x,y\n" + nums.map((v, i) => `${v},${i % 2}`).join("\n") + "\n", "s.csv");
  const x = getColumn(t, "x");
  ok(x.kind === "numeric");
  deepEqual([4, 9, 20].map((i) => Number.isNaN(x.values[i]!)), [true, true, true]);
  equal(x.values[5], 2.5);
  deepEqual(t.strays, [{
    column: "x",
    count: 3,
    examples: [{ text: "inf", line: 6 }, { text: "-inf", line: 11 }, { text: "unknown", line: 22 }],
  }]);
  // Past the share (5 %), past five distinct texts, or too few numbers: the column is categorical.
  const many = nums.map((v, i) => (i % 10 === 0 ? "n/k" : v));
  equal(inferKind(many), "categorical", "6 of 60 is more than 5 %");
  const varied = nums.map((v, i) => (i < 6 ? `code${i}` : v)).concat(nums, nums);
  equal(inferKind(varied), "categorical", "six distinct stray texts");
  equal(inferKind(["1", "2", "x"]), "categorical", "fewer than 20 numbers");
  equal(readTable("a\n1\n2\n", "c.csv").strays, undefined, "a clean table lists none");
  // Forced numeric: an error at the line by default, read as missing and listed when asked.
  throws(() => readTable("x\n1\ninf\n", "f.csv", { types: { x: "numeric" } }), /f\.csv:3: .*"inf"/);
  const lenient = readTable("x\n1\ninf\n", "f.csv", { types: { x: "numeric" }, strays: "missing" });
  deepEqual(lenient.strays, [{ column: "x", count: 1, examples: [{ text: "inf", line: 3 }] }]);
});

Deno.test("invalidUtf8() finds the first byte that is not UTF-8, by line and column, and passes real UTF-8", () => {
  const enc = new TextEncoder();
  equal(invalidUtf8(enc.encode("name,city\nZoë,Tromsø\n😀,日本\n")), null);
  // "José" saved as Latin-1 on line 3: é is one byte 0xE9, followed by a comma (no continuation byte).
  const latin = new Uint8Array([...enc.encode("a,b\nx,1\nJos"), 0xe9, ...enc.encode(",2\n")]);
  deepEqual(invalidUtf8(latin), { offset: 11, line: 3, column: 4 });
  deepEqual(invalidUtf8(new Uint8Array([0xc0, 0x80])), { offset: 0, line: 1, column: 1 }, "overlong NUL");
  deepEqual(
    invalidUtf8(new Uint8Array([0x61, 0xed, 0xa0, 0x80])),
    { offset: 1, line: 1, column: 2 },
    "surrogate",
  );
  deepEqual(
    invalidUtf8(new Uint8Array([0xf4, 0x90, 0x80, 0x80])),
    { offset: 0, line: 1, column: 1 },
    "past U+10FFFF",
  );
  deepEqual(invalidUtf8(new Uint8Array([0x61, 0xe2, 0x82])), { offset: 1, line: 1, column: 2 }, "cut short");
  // Agrees with the platform's own strict decoder on random bytes.
  let seed = 7;
  for (let t = 0; t < 2000; t++) {
    const b = new Uint8Array(1 + (t % 9));
    for (let i = 0; i < b.length; i++) b[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
    let strict = true;
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(b);
    } catch {
      strict = false;
    }
    equal(invalidUtf8(b) === null, strict, `bytes ${[...b].map((x) => x.toString(16)).join(" ")}`);
  }
});

Deno.test("formatted(): spreadsheet numbers are read as the number shown, and look-alikes are not", () => {
  const cases: [string, number][] = [
    ["$1,200.50", 1200.5],
    ["-$3", -3],
    ["$-3", -3],
    ["+€ 12", 12],
    ["£1,000,000", 1e6],
    ["¥7", 7],
    ["12%", 12],
    ["12.5 %", 12.5],
    ["-0.5%", -0.5],
    ["1,234", 1234],
    ["(1,200)", -1200],
    ["($45.10)", -45.1],
    ["(500)", -500],
    ["$.75", 0.75],
  ];
  for (const [text, want] of cases) equal(formatted(text), want, text);
  // Plain numbers are NUMBER's; commas not in whole groups of three, two signs, stray symbols: no number.
  for (
    const text of [
      "12",
      "1,5",
      "1,23,456",
      "12,34",
      ",123",
      "1,2345",
      "--3",
      "-$-3",
      "(-5)",
      "$",
      "%",
      "$1e3",
      "1,000e2",
      "12%%",
      "5 €",
      "US$5",
      "()",
    ]
  ) {
    ok(Number.isNaN(formatted(text)), text);
  }
  equal(parseNumber(" $2,000 "), 2000);
  equal(isFormatted("2,000"), true);
  equal(isFormatted("2000"), false);
  equal(isFormatted("abc"), false);
});

Deno.test("readTable(): a column of formatted numbers is numeric and its formatted cells are counted with an example", () => {
  const price = Array.from(
    { length: 30 },
    (_, i) => (i % 3 === 0 ? `"$${i},${String(i * 7).padStart(3, "0")}.25"` : String(i)),
  );
  const pct = Array.from({ length: 30 }, (_, i) => (i === 4 ? "NA" : `${i}%`));
  const text = "price,pct,code\n" + price.map((p, i) => `${p},${pct[i]},c${i % 4}`).join("\n") + "\n";
  const t = readTable(text, "f.csv");
  const p = getColumn(t, "price"), q = getColumn(t, "pct");
  ok(p.kind === "numeric" && q.kind === "numeric");
  equal(p.values[3], 3021.25, "$3,021.25");
  equal(p.values[4], 4);
  ok(Number.isNaN(q.values[4]!) && q.values[5] === 5);
  deepEqual(t.formats, [
    { column: "price", count: 10, example: { text: "$0,000.25", line: 2, value: 0.25 } },
    { column: "pct", count: 29, example: { text: "0%", line: 2, value: 0 } },
  ]);
  match(
    formatsNote(t.formats![0]!),
    /^column "price" is numeric: 10 cells are formatted \("\$0,000\.25" at line 2 is read as 0\.25\)/,
  );
  equal(getColumn(t, "code").kind, "categorical");
  equal(readTable("a\n1\n2\n", "c.csv").formats, undefined, "plain numbers list none");
  // A column of decimal commas is not read as thousands: it stays categorical.
  equal(
    readTable("a\n" + Array.from({ length: 25 }, (_, i) => `"${i},5"`).join("\n") + "\n", "d.csv").columns[0]!
      .kind,
    "categorical",
  );
});

Deno.test("decimalComma(): a number with a decimal comma reads with a point; look-alikes do not", () => {
  for (
    const [t, want] of [["0,538", "0.538"], ["-3,5", "-3.5"], [",5", ".5"], ["12,", "12."], [
      "2,5e-3",
      "2.5e-3",
    ]]
  ) {
    equal(decimalComma(t!), want, t);
  }
  for (const t of ["1,200,300", "1.5", "12", "a,b", "1,5,", "", "1;5", "1 ,5"]) {
    equal(decimalComma(t), null, t);
  }
});

Deno.test("readTable(): with ; between columns, decimal commas are numbers (said once for the file); with commas they are not", () => {
  const rows = Array.from(
    { length: 30 },
    (_, i) => `${i},${i % 7}5;${i % 3 ? "NA" : `-${i},25`};x${i % 2},${i};"${i % 4}, ${i}"`,
  );
  const text = "a;b;c;d\n" + rows.join("\n") + "\n";
  const t = readTable(text, "eu.csv", { delimiter: ";" });
  deepEqual(kinds(t), { a: "numeric", b: "numeric", c: "categorical", d: "text" });
  const a = getColumn(t, "a");
  equal(a.kind === "numeric" && a.values[3], 3.35);
  const b = getColumn(t, "b");
  ok(b.kind === "numeric" && Number.isNaN(b.values[1]!) && b.values[3] === -3.25);
  // One note for the file: the columns, how many cells, the first with its line.
  deepEqual(t.decimals?.columns, ["a", "b"]);
  equal(t.decimals?.count, 40);
  deepEqual(t.decimals?.example, { text: "0,05", line: 2, value: 0.05 });
  match(
    decimalsNote(t.decimals!),
    /^2 columns \("a", "b"\) hold numbers written with a decimal comma, .*40 cells are read so \("0,05" at line 2 is 0\.05\)$/,
  );
  // A column forced numeric reads them too (tree predict reads a new file so); one forced categorical keeps them.
  const forced = readTable(text, "eu.csv", { delimiter: ";", types: { a: "numeric", b: "categorical" } });
  equal(getColumn(forced, "a").kind, "numeric");
  const fb = getColumn(forced, "b");
  ok(fb.kind === "categorical" && fb.levels.includes("-3,25"));
  // Quoted in a comma-separated file, "0,5" is no number: a comma there is a list or a thousands mark.
  const us = readTable("a,b\n" + Array.from({ length: 30 }, (_, i) => `"${i},5",${i}`).join("\n") + "\n");
  equal(getColumn(us, "a").kind, "categorical");
  equal(us.decimals, undefined);
});

Deno.test("decodeUtf8(): UTF-16 with its byte-order mark (Excel's Unicode Text) is read; a broken one is named", () => {
  const text = "a\tb\n1\tré\n";
  const le = new Uint8Array(2 + text.length * 2), be = new Uint8Array(2 + text.length * 2);
  le.set([0xff, 0xfe]), be.set([0xfe, 0xff]);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    le[2 + 2 * i] = c & 0xff, le[3 + 2 * i] = c >> 8;
    be[2 + 2 * i] = c >> 8, be[3 + 2 * i] = c & 0xff;
  }
  equal(utf16Bom(le), "utf-16le");
  equal(utf16Bom(be), "utf-16be");
  equal(utf16Bom(new TextEncoder().encode(text)), null);
  equal(decodeUtf8(le, "le.txt"), text);
  equal(decodeUtf8(be, "be.txt"), text);
  // A lone high surrogate is no UTF-16 text.
  throws(
    () => decodeUtf8(Uint8Array.from([0xff, 0xfe, 0x00, 0xd8, 0x41, 0x00]), "bad.txt"),
    /bad\.txt.*UTF-16LE byte-order mark but is not valid/,
  );
  // Without a mark, bytes that are not UTF-8 are still named by line (the Latin-1 case).
  throws(() => decodeUtf8(Uint8Array.from([0x61, 0x0a, 0xe9]), "l1.csv"), /l1\.csv:2: .*byte 0xE9/);
});

Deno.test("unpack(): gzip is read through (within the limit); workbooks, zips and Parquet are named, not called 'not UTF-8'", () => {
  const text = "a,b\n" + Array.from({ length: 500 }, (_, i) => `${i},${i % 3}`).join("\n") + "\n";
  const gz = gzipSync(new TextEncoder().encode(text));
  ok(isGzip(gz));
  equal(new TextDecoder().decode(unpack(gz, "d.csv.gz", 1 << 20)), text);
  throws(
    () => unpack(gz, "d.csv.gz", 100),
    /d\.csv\.gz: .*gzip-compressed but more than 100 bytes once decompressed/,
  );
  throws(
    () => unpack(gz.subarray(0, 30), "cut.csv.gz", 1 << 20),
    /cut\.csv\.gz: .*gzip-compressed but not a whole gzip stream/,
  );
  const plain = new TextEncoder().encode(text);
  equal(unpack(plain, "d.csv", 10), plain, "text passes as it is (the size limit is the reader's)");
  const magic: [number[], RegExp][] = [
    [
      [0x50, 0x4b, 0x03, 0x04, 0x14],
      /zip archive \(an Excel \.xlsx workbook is one\), not CSV text: save the sheet as CSV UTF-8/,
    ],
    [[0xd0, 0xcf, 0x11, 0xe0, 0xa1], /Excel 97–2003 workbook/],
    [[0x50, 0x41, 0x52, 0x31, 0x15], /Parquet file/],
  ];
  for (const [bytes, want] of magic) throws(() => unpack(Uint8Array.from(bytes), "x", 1 << 20), want);
  // Through the file reader: the same table as the text.
  const dir = Deno.makeTempDirSync({ prefix: "arrow-gz-" });
  try {
    Deno.writeFileSync(`${dir}/d.csv.gz`, gz);
    Deno.writeTextFileSync(`${dir}/d.csv`, text);
    deepEqual(readCsvFile(`${dir}/d.csv.gz`), readCsvFile(`${dir}/d.csv`));
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
