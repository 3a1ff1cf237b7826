/**
 * A newcomer's CSV with cells the reader must decide on: a numeric column holding a few texts (`inf`,
 * `unknown`) is read as numbers with those cells missing, and said with their lines — in the run and in
 * `tree predict`; a file whose only feature is one column with missing cells still reaches the gate (a
 * features file of one column must not lose its empty rows); and a file with nothing left to learn from is
 * refused before any run directory exists.
 *
 * @module
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { arrow, treeOnce } from "./helpers/cli.ts";

/** 240 rows of `x,y`: y follows x; every 25th x is missing, three hold texts (file lines 8, 50, 121). */
function oneColumn(): string {
  const lines = ["x,y"];
  for (let i = 0; i < 240; i++) {
    const x = ((i * 53) % 240) / 24;
    const cell = i === 6 ? "inf" : i === 48 ? "unknown" : i === 119 ? "-inf" : i % 25 === 0 ? "" : String(x);
    lines.push(`${cell},${x + ((i * 7) % 5) / 2 > 6 ? "high" : "low"}`);
  }
  return lines.join("\n") + "\n";
}

Deno.test("a numeric column with stray texts: read as numbers, strays missing and said by line; one column still reaches the gate", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "arrow-newcomer-cells-" });
  const runsDir = `${dir}/runs`;
  try {
    Deno.writeTextFileSync(`${dir}/one.csv`, oneColumn());
    const r = await treeOnce(`${dir}/one.csv`, "y", runsDir);
    equal(r.code, 0, r.stderr);
    match(
      r.stderr,
      /^note: column "x" is numeric: 3 cells are no number \("inf" at line 8, "unknown" at line 50, "-inf" at line 121\) and are read as missing$/m,
    );
    const runDir = r.stdout.match(/→ (\S+)/)![1]!;
    const state = JSON.parse(Deno.readTextFileSync(`${runDir}/state.json`));
    equal(state.dataset.columns.find((c: { name: string }) => c.name === "x").kind, "numeric");
    // The start's held-out rows (some with x missing) were scored: the gate read every one of them.
    equal(state.nodes.n0.gate, "baseline", JSON.stringify(state.nodes.n0));
    ok(typeof state.nodes.n0.heldout === "number");
    ok(typeof state.final.start === "number" && state.final.problem === null, JSON.stringify(state.final));

    // Predicting: the same strays are read as missing and said, and every row gets a prediction.
    Deno.writeTextFileSync(`${dir}/new.csv`, 'x\n1.5\nunknown\n\n9\n""\n');
    const p = await arrow(["tree", "predict", runDir, `${dir}/new.csv`, "-o", `${dir}/out.csv`]);
    equal(p.code, 0, p.stderr);
    match(
      p.stderr,
      /^note: column "x" is numeric: 1 cell is no number \("unknown" at line 3\) and is read as missing$/m,
    );
    const out = Deno.readTextFileSync(`${dir}/out.csv`).trim().split("\n");
    equal(out.length, 1 + 4, out.join("\n"));
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a file whose only feature is an identifier is refused: nothing to learn from, no run directory", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "arrow-newcomer-cells-" });
  const runsDir = `${dir}/runs`;
  try {
    const rows = Array.from({ length: 50 }, (_, i) => `${100 + i},${i % 3 === 0 ? "a" : "b"}`);
    Deno.writeTextFileSync(`${dir}/ids.csv`, ["id,label", ...rows].join("\n") + "\n");
    const r = await arrow(["tree", "--data", `${dir}/ids.csv`, "--target", "label", "--runs-dir", runsDir]);
    equal(r.code, 1, r.stdout);
    match(
      r.stderr,
      /ids\.csv: no column is left to learn "label" from: "id" is left out \(id-like: a consecutive integer counter/,
    );
    equal(r.stderr.includes("    at "), false, "no stack trace");
    deepEqual([...Deno.readDirSync(runsDir)].filter((e) => e.isDirectory && !e.name.startsWith(".")), []);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

/** 300 rows of `price,discount,y`: price as `$1,234.50`, some `(…)` refunds, discount as `12%`; y follows
 * both. Read as text they would be 300 distinct categories and y could not be learned. */
function spreadsheet(): string {
  const lines = ["price,discount,y"];
  const money = (v: number) => {
    const s = Math.abs(v).toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return v < 0 ? `"($${s})"` : `"$${s}"`;
  };
  for (let i = 0; i < 300; i++) {
    const price = ((i * 37) % 300) * 10.5 - (i % 29 === 0 ? 800 : 0);
    const pct = (i * 11) % 40;
    lines.push(`${money(price)},${pct}%,${(price / 100 - pct / 10).toFixed(3)}`);
  }
  return lines.join("\n") + "\n";
}

Deno.test("formatted numbers ($1,234.50, (12.00), 12%) are read as numbers, said once per column, and predicted from", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "arrow-newcomer-cells-" });
  try {
    Deno.writeTextFileSync(`${dir}/sales.csv`, spreadsheet());
    const r = await treeOnce(`${dir}/sales.csv`, "y", `${dir}/runs`);
    equal(r.code, 0, r.stderr);
    match(
      r.stderr,
      /^note: column "price" is numeric: 300 cells are formatted \("\(\$800\.00\)" at line 2 is read as -800\)/m,
    );
    match(
      r.stderr,
      /^note: column "discount" is numeric: 300 cells are formatted \("0%" at line 2 is read as 0\)/m,
    );
    const runDir = r.stdout.match(/→ (\S+)/)![1]!;
    const state = JSON.parse(Deno.readTextFileSync(`${runDir}/state.json`));
    const kinds = Object.fromEntries(
      state.dataset.columns.map((c: { name: string; kind: string }) => [c.name, c.kind]),
    );
    deepEqual([kinds.price, kinds.discount], ["numeric", "numeric"]);
    ok(state.final.start > 0.9, `the start learns y from the numbers: ${JSON.stringify(state.final)}`);

    // New rows in the same format (and one plain) are read the same way.
    Deno.writeTextFileSync(`${dir}/new.csv`, 'price,discount\n"$2,000.00",10%\n2000,10\n"($100.00)",0%\n');
    const p = await arrow(["tree", "predict", runDir, `${dir}/new.csv`, "-o", `${dir}/out.csv`]);
    equal(p.code, 0, p.stderr);
    match(
      p.stderr,
      /^note: column "price" is numeric: 2 cells are formatted \("\$2,000\.00" at line 2 is read as 2000\)/m,
    );
    const out = Deno.readTextFileSync(`${dir}/out.csv`).trim().split("\n").slice(1).map((l) =>
      Number(l.split(",").at(-1))
    );
    equal(out.length, 3);
    equal(out[0], out[1], "$2,000.00 and 10% predict as 2000 and 10 do");
    ok(Math.abs(out[0]! - 19) < 3 && out[2]! < out[0]!, `predictions ${out}`);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("row names as R's write.csv and pandas' to_csv write them are set aside, said, and set aside again in predict", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "arrow-newcomer-cells-" });
  try {
    // write.csv: an empty first header cell and a quoted row number; y follows x.
    const rows = Array.from(
      { length: 120 },
      (_, i) => `"${i + 1}",${(i * 7) % 40},${(i * 7) % 40 > 19 ? "yes" : "no"}`,
    );
    Deno.writeTextFileSync(`${dir}/r.csv`, ['"","x","y"', ...rows].join("\n") + "\n");
    const r = await treeOnce(`${dir}/r.csv`, "y", `${dir}/runs`);
    equal(r.code, 0, r.stderr);
    match(
      r.stderr,
      /^note: the first column holds row names \("1" … "120"; its header cell is empty, as R's write\.csv and pandas' to_csv write them\): set aside, not learned from$/m,
    );
    const runDir = r.stdout.match(/→ (\S+)/)![1]!;
    const state = JSON.parse(Deno.readTextFileSync(`${runDir}/state.json`));
    deepEqual(
      state.dataset.columns.map((c: { name: string }) => c.name),
      ["x", "y"],
      "no column of row names",
    );
    ok(state.final.start > 0.9, JSON.stringify(state.final));

    // New rows as pandas writes them (index 0…), and as write.table writes them (no header cell at all).
    for (const text of [",x\n0,3\n1,35\n", '"x"\n"a",3\n"b",35\n']) {
      Deno.writeTextFileSync(`${dir}/new.csv`, text);
      const p = await arrow([
        "tree",
        "predict",
        runDir,
        `${dir}/new.csv`,
        "-o",
        `${dir}/out.csv`,
      ]);
      equal(p.code, 0, p.stderr);
      match(p.stderr, /^note: the first column holds row names .*; written back as row_name$/m);
      const out = Deno.readTextFileSync(`${dir}/out.csv`).trim().split("\n").map((l) => l.split(","));
      deepEqual(out.map((l) => l.slice(0, 3)), [
        ["row", "row_name", "prediction"],
        ["0", text.startsWith(",") ? "0" : "a", "no"],
        ["1", text.startsWith(",") ? "1" : "b", "yes"],
      ]);
    }
    // A first column without a name whose cells repeat is data, not row names: refused, naming the lines.
    Deno.writeTextFileSync(
      `${dir}/bad.csv`,
      ",x,y\n" + Array.from({ length: 40 }, (_, i) => `g${i % 3},${i},${i % 2}`).join("\n") + "\n",
    );
    const b = await arrow(["tree", "--data", `${dir}/bad.csv`, "--target", "y", "--runs-dir", `${dir}/runs`]);
    equal(b.code, 1);
    match(
      b.stderr,
      /bad\.csv:5: Cannot read the CSV: column 1 of the header has no name, and that first column repeats "g0" \(lines 2 and 5\), so it is no row names: name it in the header/,
    );
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

/** What R's write.csv2 writes (a decimal-comma locale's spreadsheet too): `;` between columns, decimal
 * commas, quoted texts and row names; y = 3·x − z on 200 rows. */
function decimalCommaFile(): string {
  const lines = ['"";"x";"z";"kind";"y"'];
  for (let i = 0; i < 200; i++) {
    const x = ((i * 37) % 200) / 40, z = (i % 9) / 4;
    const c = (v: number) => String(Math.round(v * 1000) / 1000).replace(".", ",");
    lines.push(`"${i + 1}";${c(x)};${c(z)};"${i % 3 ? "a" : "b"}";${c(3 * x - z)}`);
  }
  return lines.join("\n") + "\n";
}

Deno.test("a ;-separated file with decimal commas (R's write.csv2): refused with the flag to use, then read as numbers and predicted from", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "arrow-newcomer-cells-" });
  try {
    Deno.writeTextFileSync(`${dir}/eu.csv`, decimalCommaFile());
    const base = ["tree", "--data", `${dir}/eu.csv`, "--target", "y", "--runs-dir", `${dir}/runs`];
    // Read as commas it cannot be read: the error says which flag reads it, and nothing is made.
    const bad = await arrow(base);
    equal(bad.code, 1, bad.stderr);
    match(bad.stderr, /its first line looks separated by ';', not commas: read it with --delimiter ';'/);
    equal(Array.from(Deno.readDirSync(dir)).length, 1, "no run directory");

    // Excel's own declaration on the first line reads it with no flag: the same columns, and said.
    Deno.writeTextFileSync(`${dir}/sep.csv`, "sep=;\n" + decimalCommaFile());
    const sep = await treeOnce(`${dir}/sep.csv`, "y", `${dir}/runs`);
    equal(sep.code, 0, sep.stderr);
    match(sep.stderr, /^note: the first line, sep=;, declares what separates the columns/m);
    match(sep.stderr, /^note: 3 columns \("x", "z", "y"\) hold numbers written with a decimal comma/m);

    const r = await treeOnce(`${dir}/eu.csv`, "y", `${dir}/runs`, ["--delimiter", ";"]);
    equal(r.code, 0, r.stderr);
    match(
      r.stderr,
      /^note: 3 columns \("x", "z", "y"\) hold numbers written with a decimal comma, as a spreadsheet saves them with ; between columns: \d+ cells are read so \("\d+,\d+" at line \d+ is \d+\.\d+\)$/m,
    );
    const runDir = r.stdout.match(/→ (\S+)/)![1]!;
    const state = JSON.parse(Deno.readTextFileSync(`${runDir}/state.json`));
    equal(state.dataset.task, "regression", "y is a number, not 200 classes");
    ok(state.final.start > 0.9, `the start learns y from x and z: ${JSON.stringify(state.final)}`);

    Deno.writeTextFileSync(`${dir}/new.csv`, '"x";"z";"kind"\n2,5;0,5;"a"\n2.5;0.5;"a"\n');
    const p = await arrow([
      "tree",
      "predict",
      runDir,
      `${dir}/new.csv`,
      "--delimiter",
      ";",
      "-o",
      `${dir}/out.csv`,
    ]);
    equal(p.code, 0, p.stderr);
    match(p.stderr, /^note: 2 columns \("x", "z"\) hold numbers written with a decimal comma/m);
    const out = Deno.readTextFileSync(`${dir}/out.csv`).trim().split("\n").slice(1).map((l) =>
      Number(l.split(",").at(-1))
    );
    equal(out[0], out[1], "2,5 and 2.5 predict alike");
    ok(Math.abs(out[0]! - 7) < 1.5, `3·2.5 − 0.5 = 7: ${out}`);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

/** `text` as Excel's "Unicode Text" saves it: UTF-16LE after a byte-order mark. */
function utf16le(text: string): Uint8Array {
  const out = new Uint8Array(2 + 2 * text.length);
  out.set([0xff, 0xfe]);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    out[2 + 2 * i] = c & 0xff, out[3 + 2 * i] = c >> 8;
  }
  return out;
}

Deno.test("a UTF-16 tab-separated file (Excel's Unicode Text) is read as such and said; run --data's UTF-8 workers refuse it by name", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "arrow-newcomer-cells-" });
  try {
    const lines = ["größe\tgewicht\tart"];
    for (let i = 0; i < 120; i++) {
      lines.push(`${150 + (i % 40)}\t${50 + ((i * 7) % 30)}\t${i % 40 > 20 ? "groß" : "klein"}`);
    }
    Deno.writeFileSync(`${dir}/wide.txt`, utf16le(lines.join("\r\n") + "\r\n"));
    const r = await treeOnce(`${dir}/wide.txt`, "art", `${dir}/runs`, ["--delimiter", "tab"]);
    equal(r.code, 0, r.stderr);
    match(r.stderr, /^note: .*wide\.txt is UTF-16LE text \(its byte-order mark says so/m);
    const runDir = r.stdout.match(/→ (\S+)/)![1]!;
    const state = JSON.parse(Deno.readTextFileSync(`${runDir}/state.json`));
    deepEqual(state.dataset.classes, ["groß", "klein"]);
    equal(state.dataset.columns.find((c: { name: string }) => c.name === "größe").kind, "numeric");
    ok(state.final.start > 0.9, JSON.stringify(state.final));

    const run = await arrow([
      "run",
      "--real",
      "--data",
      `${dir}/wide.txt`,
      "--delimiter",
      "tab",
      "--target",
      "größe",
      "--runs-dir",
      `${dir}/r2`,
    ]);
    equal(run.code, 1, run.stderr);
    match(run.stderr, /it is UTF-16LE text, and the built-in workers read UTF-8/);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a gzip-compressed CSV (.csv.gz) is read through, in tree and predict, and said; a workbook is named with what to save", async () => {
  const { gzipSync } = await import("node:zlib");
  const dir = Deno.makeTempDirSync({ prefix: "arrow-newcomer-cells-" });
  try {
    Deno.writeFileSync(`${dir}/one.csv.gz`, gzipSync(new TextEncoder().encode(oneColumn())));
    const r = await treeOnce(`${dir}/one.csv.gz`, "y", `${dir}/runs`);
    equal(r.code, 0, r.stderr);
    match(r.stderr, /^note: .*one\.csv\.gz is gzip-compressed: read through it$/m);
    // The same file, read through: the same strays at the same lines.
    match(r.stderr, /"inf" at line 8, "unknown" at line 50, "-inf" at line 121/);
    const runDir = r.stdout.match(/→ (\S+)/)![1]!;
    Deno.writeFileSync(`${dir}/new.csv.gz`, gzipSync(new TextEncoder().encode("x\n1.5\n9\n")));
    const p = await arrow(["tree", "predict", runDir, `${dir}/new.csv.gz`, "-o", `${dir}/out.csv`]);
    equal(p.code, 0, p.stderr);
    equal(Deno.readTextFileSync(`${dir}/out.csv`).trim().split("\n").length, 3, "a header and two rows");

    Deno.writeFileSync(`${dir}/book.xlsx`, Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00]));
    const x = await arrow([
      "tree",
      "--data",
      `${dir}/book.xlsx`,
      "--target",
      "y",
      "--runs-dir",
      `${dir}/runs2`,
    ]);
    equal(x.code, 1, x.stderr);
    match(
      x.stderr,
      /book\.xlsx: .*a zip archive \(an Excel \.xlsx workbook is one\), not CSV text: save the sheet as CSV UTF-8/,
    );
    equal(x.stderr.includes("UTF-8 text: byte"), false, "not called a Latin-1 file");

    const run = await arrow([
      "run",
      "--real",
      "--data",
      `${dir}/one.csv.gz`,
      "--target",
      "x",
      "--runs-dir",
      `${dir}/r3`,
    ]);
    equal(run.code, 1, run.stderr);
    match(run.stderr, /it is gzip-compressed, and the built-in workers read it as text/);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
