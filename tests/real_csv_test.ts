/**
 * `arrow run --real --data file.csv --target col`: every broken file is refused up front with an error naming
 * the file and the line (exit 1); a good file is copied into the run and becomes the data set, its sha256
 * the run's data_hash.
 */
import { deepEqual, equal, match, ok, rejects, throws } from "node:assert/strict";
import { CsvError } from "../src/tabular/csv.ts";
import { parseNumericCsv } from "../src/tabular/numeric.ts";
import { sha256 } from "../src/workers/lib/files.ts";
import { withUserData } from "../src/cli/data.ts";
import { InputError } from "../src/cli/errors.ts";
import { arrow, ROOT } from "./helpers/cli.ts";
import { realScenario } from "./helpers/real.ts";

const FIX = "tests/fixtures/csv";
const seed = () => realScenario("green").plan;

async function refused(file: string, target = "y"): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "arrow-csv-" });
  try {
    let message = "";
    await rejects(withUserData(seed(), `${ROOT}${FIX}/${file}`, target, dir), (e: Error) => {
      ok(e instanceof InputError, String(e));
      message = [e.message, ...(e as InputError).lines].join("\n").replaceAll(ROOT, "");
      return true;
    });
    return message;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const CASES: [string, string, RegExp][] = [
  ["missing.csv", "y", /tests\/fixtures\/csv\/missing\.csv: Cannot read the CSV: no such file/],
  ["empty.csv", "y", /empty\.csv:1: Cannot read the CSV: the file is empty/],
  [
    "header_only.csv",
    "y",
    /header_only\.csv:2: Cannot read the CSV: there are no data rows after the header/,
  ],
  [
    "ragged.csv",
    "y",
    /ragged\.csv:3: Cannot read the CSV: this row has 2 cells, but the header has 3 columns/,
  ],
  ["non_numeric.csv", "y", /non_numeric\.csv:3: column "b" holds "x", not a number/],
  [
    "empty_cell.csv",
    "y",
    /empty_cell\.csv:3: column "b" holds an empty cell, a missing value \(the built-in workers need every cell\)/,
  ],
  // Blank lines are skipped (as arrow tree reads them): what is left is too few rows.
  ["blank_line.csv", "y", /blank_line\.csv: 2 rows with a target; at least 10 are needed for the splits/],
  ["no_target.csv", "y", /no_target\.csv:1: no column "y" to predict\ncolumns in .*no_target\.csv: a, b, c/],
  // Its own splits (train, dev, test), not tree mode's.
  [
    "few_rows.csv",
    "y",
    /few_rows\.csv: 3 rows with a target; at least 10 are needed for the splits \(train, dev and test rows\)/,
  ],
  ["constant_target.csv", "y", /constant_target\.csv: the target "y" has one class \("5" on every row/],
];

for (const [file, target, want] of CASES) {
  Deno.test(`withUserData() refuses ${file}, naming the file and line`, async () => {
    match(await refused(file, target), want);
  });
}

Deno.test("parseNumericCsv() takes quoted headers, CRLF, a BOM, spaces and exponents; refuses odd quoting", () => {
  const t = parseNumericCsv('\uFEFF"a", b ,"c ""q"""\r\n1, -2.5e-1 ,"3"\r\n', "x.csv");
  deepEqual(t, { columns: ["a", "b", 'c "q"'], rows: [[1, -0.25, 3]] });
  throws(
    () => parseNumericCsv('a,b\n"1,2\n', "q.csv"),
    (e: Error) =>
      e instanceof CsvError &&
      e.message === "q.csv:2: Cannot read the CSV: a quoted cell opens on this line and never closes",
  );
  throws(
    () => parseNumericCsv("a,a\n1,2\n", "d.csv"),
    /d\.csv:1: Cannot read the CSV: column "a" appears twice/,
  );
  throws(
    () => parseNumericCsv("a,b\n1,1e999\n", "o.csv"),
    /o\.csv:2: .*column "b" holds "1e999", out of range/,
  );
  throws(
    () => parseNumericCsv("a,b\n1,NaN\n", "n.csv"),
    /n\.csv:2: .*column "b" holds "NaN", a missing value/,
  );
  deepEqual(parseNumericCsv("a;b\n1;2\n", "s.csv", ";"), { columns: ["a", "b"], rows: [[1, 2]] });
  // With ; between columns a decimal comma is a number (R's write.csv2); with commas it cannot be one.
  deepEqual(parseNumericCsv('a;b\n0,5;"-2,25"\n3;1.5\n', "eu.csv", ";"), {
    columns: ["a", "b"],
    rows: [[0.5, -2.25], [3, 1.5]],
  });
  throws(
    () => parseNumericCsv('a,b\n"0,5",1\n', "us.csv"),
    /us\.csv:2: .*column "a" holds "0,5", not a number/,
  );
});

Deno.test("withUserData() copies the file into <run>/data and points the data node at the copy", async () => {
  const dir = await Deno.makeTempDir({ prefix: "arrow-csv-" });
  try {
    const plan = await withUserData(seed(), `${ROOT}${FIX}/good.csv`, "target", dir);
    const n1 = plan.nodes.find((n) => n.role === "data")!;
    deepEqual(n1.worker, {
      type: "builtin",
      name: "make_data",
      args: { csv: `${dir}/data/good.csv`, target: "target" },
    });
    deepEqual(Deno.readFileSync(`${dir}/data/good.csv`), Deno.readFileSync(`${ROOT}${FIX}/good.csv`));
    equal(
      seed().nodes.find((n) => n.role === "data")!.worker?.type,
      "builtin",
      "the input plan is untouched",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("arrow run --real --data: a user CSV runs end to end; data_hash is its sha256", async () => {
  const runs = await Deno.makeTempDir({ prefix: "arrow-csv-runs-" });
  try {
    const bad = await arrow([
      "run",
      "--scenario",
      "green",
      "--real",
      "--data",
      `${FIX}/ragged.csv`,
      "--target",
      "y",
    ]);
    equal(bad.code, 1);
    match(
      bad.stderr,
      /^arrow run: tests\/fixtures\/csv\/ragged\.csv:3: Cannot read the CSV: this row has 2 cells, but the header has 3 columns/,
    );
    const r = await arrow([
      ...["run", "--scenario", "green", "--real", "--json", "--runs-dir", runs],
      ...["--data", `${FIX}/good.csv`, "--target", "target"],
    ]);
    equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    ok(["RESEARCH ANSWERED", "NEGATIVE RESULT"].includes(out.verdict), out.verdict);
    const m = JSON.parse(Deno.readTextFileSync(`${out.run_dir}/nodes/N1/results.json`));
    equal(m.data_hash, await sha256(Deno.readFileSync(`${ROOT}${FIX}/good.csv`)));
    equal(m.rows, 120);
    equal(m.target, "target");
  } finally {
    await Deno.remove(runs, { recursive: true });
  }
});
