/**
 * Where a tree run stands, on record: `splits.json` (disjoint parts covering the usable rows, numbered as
 * the user's CSV is), the admitted artifact refit on dev + held-out and saved as `model/`, `arrow tree
 * predict` with that model (one row per input, the right columns, missing columns named, extra ones
 * ignored), the references on the final test in --json and the report, the trivial baseline on a hand-made
 * CSV, `--start weak` and a bad `--start` file, and an id-like column left out.
 *
 * @module
 */
import { deepEqual, equal, match, notEqual, ok } from "node:assert/strict";
import { arrow } from "./helpers/cli.ts";
import { cellValue, readCsvFile, writeCsv } from "../src/tabular/mod.ts";
import { idLike, loadData } from "../src/tree/data.ts";
import { trivialScore } from "../src/tree/gate/references.ts";
import { refitRows } from "../src/tree/gate/gate.ts";
import { TUNE_ALPHAS } from "../src/tabular/linear.ts";

const FIX = new URL("./fixtures/tree/", import.meta.url).pathname;

/** small.csv with the label of data row 7 blanked: a row the splits must count but never use. */
function withMissingTarget(dir: string): string {
  const lines = Deno.readTextFileSync(`${FIX}small.csv`).trimEnd().split("\n");
  const at = 1 + 7;
  lines[at] = lines[at]!.replace(/,(yes|no)$/, ",");
  const path = `${dir}/missing_one.csv`;
  Deno.writeTextFileSync(path, lines.join("\n") + "\n");
  return path;
}

async function treeRun(tmp: string, data: string, extra: string[] = []) {
  const r = await arrow([
    "tree",
    "--data",
    data,
    "--target",
    "label",
    "--cycles",
    "2",
    "--executors",
    "1",
    "--runs-dir",
    tmp,
    "--json",
    ...extra,
  ]);
  equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split("\n").at(-1)!);
}

Deno.test("a run records its splits, refits and saves its model, scores its references, and predicts", async (t) => {
  const tmp = Deno.makeTempDirSync({ prefix: "arrow-tree-refs-" });
  try {
    const data = withMissingTarget(tmp);
    const o = await treeRun(tmp, data);

    await t.step("splits.json: disjoint parts covering every usable row, CSV row numbers", () => {
      equal(o.splits, `${o.run_dir}/splits.json`);
      const sp = JSON.parse(Deno.readTextFileSync(o.splits));
      equal(sp.format, "arrow-tree-splits/1");
      equal(sp.target, "label");
      equal(sp.metric, "accuracy");
      equal(sp.task, "binary");
      equal(sp.seed, 0);
      equal(sp.rows, 160);
      deepEqual(sp.missing_target, [7], "the blanked row is counted, and in no part");
      const all = [...sp.dev, ...sp.heldout, ...sp.test];
      equal(new Set(all).size, all.length, "dev, heldout and test are disjoint");
      deepEqual(
        all.sort((a: number, b: number) => a - b),
        Array.from({ length: 160 }, (_, i) => i).filter((i) => i !== 7),
        "together they cover every row with a target",
      );
      const state = JSON.parse(Deno.readTextFileSync(`${o.run_dir}/state.json`));
      equal(sp.dev.length, state.dataset.dev);
      equal(sp.test.length, state.dataset.test);
      const devCsv = Deno.readTextFileSync(`${o.run_dir}/data/dev.csv`).trim().split("\n").length - 1;
      equal(devCsv, sp.dev.length, "the executors' dev.csv holds exactly the dev rows");
    });

    await t.step("references in --json: start, admitted dev-only and refit, strong default, trivial", () => {
      const r = o.references;
      deepEqual(Object.keys(r).sort(), ["admitted", "admitted_refit", "start", "strong_default", "trivial"]);
      for (const k of Object.keys(r)) ok(typeof r[k].score === "number", `${k}: ${JSON.stringify(r[k])}`);
      equal(r.admitted.fit_on, "dev");
      equal(r.admitted_refit.fit_on, "dev+heldout");
      equal(r.admitted_refit.node, o.best.id);
      equal(r.admitted.score, o.best.test);
      // Seed 0 on this file: the refit on 32 more rows predicts the final test differently.
      notEqual(
        r.admitted_refit.score,
        r.admitted.score,
        "the refit is a different model from the dev-only fit",
      );
      ok(typeof o.verdict === "string");
      equal(o.node_count, o.nodes.length);
      deepEqual(Object.keys(o.nodes[0]).sort(), ["dev", "heldout", "hypothesis", "id", "parent", "status"]);
      equal(o.nodes[0].parent, null);
      ok(Array.isArray(o.flags) && Array.isArray(o.warnings));
      const sign = 1;
      const beatsStrong = sign * (r.admitted_refit.score - r.strong_default.score) >= 0;
      equal(o.flags.some((f: string) => f.startsWith("BELOW STRONG DEFAULT")), !beatsStrong);
    });

    await t.step("the report shows the references and every gate decision, labelled", () => {
      const md = Deno.readTextFileSync(`${o.run_dir}/report/report.md`);
      match(md, /## References on the final test/);
      match(md, /\| admitted \(n\d+\), dev-only fit \| dev \| \d\.\d{4} \|/);
      match(md, /\| admitted \(n\d+\), refit \| dev \+ held-out \| \d\.\d{4} \|/);
      match(md, /\| strong default .* \| dev \+ held-out \| \d\.\d{4} \|/);
      match(md, /\| trivial \(class shares\) \| dev \+ held-out \| \d\.\d{4} \|/);
      match(md, /\| candidate \| hypothesis \| dev gain vs root \| dev Δ vs parent \| held-out \|/);
      const gated = o.nodes.filter((n: { heldout: number | null; id: string }) =>
        n.heldout !== null && n.id !== "n0"
      );
      for (const n of gated) match(md, new RegExp(`\\| ${n.id} \\| .*\\| (admitted|rejected) \\|`));
    });

    const model = JSON.parse(Deno.readTextFileSync(`${o.run_dir}/model/model.json`));
    await t.step("model/model.json names what a reader needs", () => {
      equal(o.model, `${o.run_dir}/model/model.json`);
      equal(model.format, "arrow-tree-model/1");
      equal(model.target, "label");
      deepEqual(model.classes, ["no", "yes"], "the file's own labels, not false/true");
      deepEqual(model.columns.map((c: { name: string }) => c.name), ["x1", "x2", "group", "name"]);
      equal(model.fit_rows, 159 - JSON.parse(Deno.readTextFileSync(o.splits)).test.length, "dev + held-out");
      equal(model.final_test, o.references.admitted_refit.score);
      ok(["gbdt.json", "linear.json"].includes(model.files.model), model.files.model);
      for (const f of [model.files.model, "encoding.json"]) {
        ok(Deno.statSync(`${o.run_dir}/model/${f}`).isFile, f);
      }
      equal(model.predict, "in-process");
    });

    await t.step("predict: one row per input, the refit's own score on the test rows", async () => {
      const sp = JSON.parse(Deno.readTextFileSync(o.splits));
      const table = readCsvFile(data);
      const testCsv = `${tmp}/test_rows.csv`;
      Deno.writeTextFileSync(testCsv, writeCsv(table, Int32Array.from(sp.test)));
      const outCsv = `${tmp}/pred.csv`;
      const r = await arrow(["tree", "predict", o.run_dir, testCsv, "-o", outCsv]);
      equal(r.code, 0, r.stderr);
      match(r.stderr, /ignored column\(s\) the model does not use: label/);
      const lines = Deno.readTextFileSync(outCsv).trim().split("\n");
      equal(lines[0], "row,prediction,p_no,p_yes");
      equal(lines.length - 1, sp.test.length, "one prediction per input row");
      const label = table.columns.find((c) => c.name === "label")!;
      let right = 0;
      lines.slice(1).forEach((l, i) => {
        const [row, pred, p0, p1] = l.split(",");
        equal(Number(row), i);
        ok(Math.abs(Number(p0) + Number(p1) - 1) < 1e-9, l);
        equal(pred, Number(p1) >= 0.5 ? "yes" : "no");
        if (label.kind === "boolean" && label.labels![cellValue(label, sp.test[i]!) ? 1 : 0] === pred) {
          right++;
        }
      });
      equal(
        right / sp.test.length,
        o.references.admitted_refit.score,
        "predict reproduces the refit's test score",
      );
    });

    await t.step("predict refuses a file missing a column (named), ignores an extra one", async () => {
      const lines = Deno.readTextFileSync(`${FIX}small.csv`).trim().split("\n");
      const noX2 = `${tmp}/no_x2.csv`;
      Deno.writeTextFileSync(
        noX2,
        lines.slice(0, 6).map((l) => l.replace(/^([^,]*),[^,]*,/, "$1,")).join("\n") + "\n",
      );
      const miss = await arrow(["tree", "predict", o.run_dir, noX2]);
      equal(miss.code, 1);
      match(miss.stderr, /no_x2\.csv:1: the model needs column "x2", which the header lacks/);
      const extra = `${tmp}/extra.csv`;
      Deno.writeTextFileSync(
        extra,
        lines.slice(0, 6).map((l, i) => `${l},${i ? i * 3 : "shoe_size"}`).join("\n") + "\n",
      );
      const ok1 = await arrow(["tree", "predict", o.run_dir, extra]);
      equal(ok1.code, 0, ok1.stderr);
      match(ok1.stderr, /ignored column\(s\) the model does not use: label, shoe_size/);
      equal(ok1.stdout.trim().split("\n").length, 6, "header and five predictions");
      const bad = `${tmp}/bad.csv`;
      Deno.writeTextFileSync(bad, `${lines[0]}\n1,2\n`);
      const unreadable = await arrow(["tree", "predict", o.run_dir, bad]);
      equal(unreadable.code, 1);
      match(unreadable.stderr, /bad\.csv:2: Cannot read the CSV/);
    });
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});

Deno.test("the trivial baseline is the majority share of dev + held-out, and the mean for regression", () => {
  const tmp = Deno.makeTempDirSync({ prefix: "arrow-tree-trivial-" });
  try {
    // 40 rows: class "a" in 3 of every 4 rows; y = the row number.
    const rows = Array.from({ length: 40 }, (_, i) => `${i % 7},${i % 4 === 3 ? "b" : "a"},${i}`);
    const file = `${tmp}/tiny.csv`;
    Deno.writeTextFileSync(file, ["x,cls,y", ...rows].join("\n") + "\n");
    const cls = loadData(file, "cls", { seed: 3 });
    const train = refitRows(cls);
    const test = cls.task.splits.test;
    const label = (r: number) => (r % 4 === 3 ? "b" : "a");
    const trainA = Array.from(train).filter((r) => label(r) === "a").length;
    const majority = trainA * 2 >= train.length ? "a" : "b";
    const expected = Array.from(test).filter((r) => label(r) === majority).length / test.length;
    equal(trivialScore(cls, train, test), expected);

    const reg = loadData(file, "y", { seed: 3, metric: "rmse" });
    const rt = refitRows(reg), rte = reg.task.splits.test;
    const mean = Array.from(rt).reduce((s, r) => s + r, 0) / rt.length;
    const rmse = Math.sqrt(Array.from(rte).reduce((s, r) => s + (r - mean) ** 2, 0) / rte.length);
    ok(Math.abs(trivialScore(reg, rt, rte)! - rmse) < 1e-12, `${trivialScore(reg, rt, rte)} vs ${rmse}`);
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});

Deno.test("an id-like column is left out before anything runs; a name with words in it, or a date a row, is not", () => {
  const tmp = Deno.makeTempDirSync({ prefix: "arrow-tree-id-" });
  try {
    // A date on every row (a daily series) is unique per row too, but it is a calendar: kept, as a date.
    const day = (i: number) => new Date(Date.UTC(2021, 0, 1 + i)).toISOString().slice(0, 10);
    const rows = Array.from(
      { length: 30 },
      (_, i) => `${100 + i},K${i * 7},${i % 3},name ${i},${day(i)},${i % 2 ? "y" : "n"}`,
    );
    const file = `${tmp}/ids.csv`;
    Deno.writeTextFileSync(file, ["id,code,x,full name,day,t", ...rows].join("\n") + "\n");
    const d = loadData(file, "t", { seed: 0 });
    deepEqual(d.info.dropped?.map((x) => x.column), ["id", "code"]);
    deepEqual(d.table.columns.map((c) => c.name), ["x", "full name", "day", "t"]);
    equal(d.info.columns.find((c) => c.name === "day")?.date, true);
    const x = readCsvFile(file).columns.find((c) => c.name === "x")!;
    equal(idLike(x, 30), false, "a repeating value is no identifier");
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});

Deno.test("a linear start that tunes its strength: saved as linear.json with the strength chosen, and predicts", async () => {
  const tmp = Deno.makeTempDirSync({ prefix: "arrow-tree-linear-" });
  try {
    const start = `${tmp}/linear_start.json`;
    Deno.writeTextFileSync(
      start,
      JSON.stringify({
        format: "arrow-tree-artifact/1",
        steps: [],
        model: { kind: "linear", alpha: 1, tune: 3 },
      }),
    );
    const o = await treeRun(tmp, `${FIX}small.csv`, ["--start", start, "--cycles", "1"]);
    const model = JSON.parse(Deno.readTextFileSync(`${o.run_dir}/model/model.json`));
    const fitted = JSON.parse(Deno.readTextFileSync(`${o.run_dir}/model/${model.files.model}`));
    // The file is named for the model it holds, whichever node was admitted.
    equal(model.files.model, fitted.format === "arrow-linear/1" ? "linear.json" : "gbdt.json");
    if (model.node === "n0") {
      equal(fitted.format, "arrow-linear/1", "nothing admitted: the start's refit, a linear model");
      equal(fitted.params.tune, 3);
      ok(TUNE_ALPHAS.includes(fitted.params.alpha), `the chosen strength ${fitted.params.alpha}`);
    }
    const r = await arrow(["tree", "predict", o.run_dir, `${FIX}small.csv`]);
    equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split("\n");
    equal(lines[0], "row,prediction,p_no,p_yes");
    equal(lines.length - 1, 160);
    // An unreadable files.model is an error naming the manifest, not a crash.
    Deno.writeTextFileSync(
      `${o.run_dir}/model/model.json`,
      JSON.stringify({ ...model, files: { ...model.files, model: "../x.json" } }),
    );
    const bad = await arrow(["tree", "predict", o.run_dir, `${FIX}small.csv`]);
    equal(bad.code, 1);
    match(bad.stderr, /model\.json: files\.model "\.\.\/x\.json" is not a file name in the model/);
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});

Deno.test("--start weak starts from 10 stumps; a bad --start file is an input error naming it", async () => {
  const tmp = Deno.makeTempDirSync({ prefix: "arrow-tree-start-" });
  try {
    const o = await treeRun(tmp, `${FIX}small.csv`, ["--start", "weak", "--cycles", "1"]);
    const art = JSON.parse(Deno.readTextFileSync(`${o.run_dir}/nodes/n0/artifact.json`));
    deepEqual(art.model, { stages: 10, maxDepth: 1 });
    const startWith = (file: string) =>
      arrow(["tree", "--data", `${FIX}small.csv`, "--target", "label", "--runs-dir", tmp, "--start", file]);
    const bad = `${tmp}/bad_start.json`;
    const refused: [Record<string, unknown>, RegExp][] = [
      [{ maxDepth: 99 }, /--start .*bad_start\.json: Cannot use GBDT maxDepth 99/],
      [{ kind: "linear", tune: 1 }, /--start .*bad_start\.json: Cannot use linear tune 1/],
    ];
    for (const [model, why] of refused) {
      Deno.writeTextFileSync(bad, JSON.stringify({ format: "arrow-tree-artifact/1", steps: [], model }));
      const r = await startWith(bad);
      equal(r.code, 1);
      match(r.stderr, why);
    }
    const missing = await startWith(`${tmp}/none.json`);
    equal(missing.code, 1);
    match(missing.stderr, /none\.json: no such file/);
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});
