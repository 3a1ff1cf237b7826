/** The tabular toolkit end to end on fixture files, and inside a child with an executor's permissions. */
import { deepEqual, equal, ok } from "node:assert/strict";
import {
  columnKinds,
  crossValidate,
  CsvError,
  describeTable,
  evaluateOn,
  makeSplits,
  makeTarget,
  readCsvFile,
  readTable,
  restrictSplits,
  splitsFromJson,
  splitsToJson,
  writeCsv,
} from "../src/tabular/mod.ts";
import { ROOT } from "./helpers/cli.ts";

const DIR = `${ROOT}tests/fixtures/tabular`;

Deno.test("readCsvFile() types the passengers fixture (BOM, CRLF, quoted names, missing markers)", () => {
  const t = readCsvFile(`${DIR}/passengers.csv`);
  equal(t.nRows, 60);
  const kinds = Object.fromEntries(describeTable(t).map((c) => [c.name, c.kind]));
  deepEqual(kinds, {
    PassengerId: "numeric",
    Survived: "numeric",
    Pclass: "numeric",
    Name: "text",
    Sex: "categorical",
    Age: "numeric",
    Fare: "numeric",
    Cabin: "categorical",
    Embarked: "categorical",
    Alone: "boolean",
  });
  const missing = Object.fromEntries(describeTable(t).map((c) => [c.name, c.missing]));
  ok(missing.Age! > 10 && missing.Cabin! > 10 && missing.Embarked! > 5, JSON.stringify(missing));
  equal(makeTarget(t, "Survived").task, "binary");
});

Deno.test("readCsvFile() names file and line for every broken fixture", () => {
  const expected: Record<string, [number, string]> = JSON.parse(
    Deno.readTextFileSync(`${DIR}/broken/expected.json`),
  );
  for (const [name, [line, reason]] of Object.entries(expected)) {
    const path = `${DIR}/broken/${name}`;
    try {
      readCsvFile(path);
      throw new Error(`${name} was read`);
    } catch (e) {
      ok(e instanceof CsvError, `${name}: ${e}`);
      equal(e.message, `${path}:${line}: Cannot read the CSV: ${reason}`);
    }
  }
});

Deno.test("crossValidate() and evaluateOn() run on the fixture: dev folds, then held-out and test once", () => {
  const table = readCsvFile(`${DIR}/passengers.csv`);
  const target = makeTarget(table, "Survived");
  const splits = makeSplits(target, { seed: 1, folds: 3 });
  const spec = { target, model: { stages: 20 } };
  const cv = crossValidate(table, splits, spec, "auc");
  equal(cv.folds.length, 3);
  ok(cv.folds.every((f) => f.score >= 0 && f.score <= 1));
  const held = evaluateOn(table, splits.dev, splits.heldout, spec, "auc");
  const test = evaluateOn(table, splits.dev, splits.test, spec, "auc");
  equal(held.prediction.values.length, splits.heldout.length);
  equal(test.prediction.values.length, splits.test.length);
});

Deno.test("the toolkit runs in a child with only --allow-read of its CSV (--no-npm --no-remote)", async () => {
  const csv = `${DIR}/passengers.csv`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-npm",
      "--no-remote",
      `--allow-read=${csv}`,
      `${ROOT}tests/tabular_worker_child.ts`,
      csv,
      "Survived",
      `${DIR}/broken/expected.json`,
    ],
    env: { NO_COLOR: "1", RUST_BACKTRACE: "0" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  equal(out.code, 0, stderr);
  const r = JSON.parse(new TextDecoder().decode(out.stdout));
  deepEqual([r.task, r.metric, r.folds, r.other], ["binary", "accuracy", 3, "denied"]);
  ok(r.mean > 0.7, `title feature accuracy ${r.mean}`);
});

Deno.test("an executor handed only the dev rows (CSV + kinds + re-indexed folds) gets the same CV scores", () => {
  const table = readCsvFile(`${DIR}/passengers.csv`);
  const target = makeTarget(table, "Survived");
  const splits = makeSplits(target, { seed: 4, folds: 3 });
  const full = crossValidate(table, splits, { target, model: { stages: 15 } }, "logloss");
  const devTable = readTable(writeCsv(table, splits.dev), "dev.csv", { types: columnKinds(table) });
  const devSplits = splitsFromJson(
    JSON.parse(JSON.stringify(splitsToJson(restrictSplits(splits, splits.dev)))),
    devTable.nRows,
  );
  const devTarget = makeTarget(devTable, "Survived");
  const alone = crossValidate(devTable, devSplits, { target: devTarget, model: { stages: 15 } }, "logloss");
  deepEqual(alone.folds, full.folds);
  equal(devTable.nRows, splits.dev.length);
});
