/**
 * The tree benchmark's references and statistics: refs.py's metrics agree with src/tabular/metrics.ts, the
 * references run on exactly the rows given, a run's splits.json is checked against loadData, and the paired
 * intervals and the report orient every difference so that + = better.
 */
import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { interval, pairedDiffs, sumOverDatasets, t975 } from "../scripts/bench/paired.ts";
import { arrowSplit, PYTHON, references, runSplit } from "../scripts/bench/refs.ts";
import { scoreReport } from "../scripts/bench/tree_report.ts";
import { mulberry32, score } from "../src/tabular/mod.ts";
import type { MetricName } from "../src/tabular/mod.ts";
import { ROOT } from "./helpers/cli.ts";
import { needs, pythonLacks } from "./helpers/needs.ts";

const FILE = "tabular_bench_refs_test";
const NO_PY = pythonLacks("sklearn", "xgboost");

Deno.test("interval() is the Student-t 95 % interval of the mean", () => {
  const i = interval([1, 2, 3, 4]);
  equal(i.mean, 2.5);
  // sd = 1.2910, t(3) = 3.182: half = 3.182 · 1.2910 / 2
  ok(Math.abs(i.half - 3.182 * Math.sqrt(5 / 3) / 2) < 1e-12);
  equal(t975(40), 1.96);
  ok(Number.isNaN(interval([7]).half));
  throws(() => interval([1, NaN]), /NaN/);
});

Deno.test("pairedDiffs() pairs by seed and refuses a seed on one side only", () => {
  deepEqual(pairedDiffs(new Map([[1, 5], [0, 3]]), new Map([[0, 1], [1, 1]])), [2, 4]);
  throws(() => pairedDiffs(new Map([[0, 1], [1, 1]]), new Map([[0, 1]])), /seed\(s\) 1 on one side only/);
  deepEqual(
    sumOverDatasets(new Map([["a", new Map([[0, 1], [1, 2]])], ["b", new Map([[0, 10], [1, 20]])]])),
    [11, 22],
  );
  throws(
    () => sumOverDatasets(new Map([["a", new Map([[0, 1]])], ["b", new Map([[1, 1]])]])),
    /b has no seed 0/,
  );
});

Deno.test("scoreReport() picks the best reference by direction and pairs the tree with it", () => {
  // mae: lower is better, so the best reference is the one with the smaller error, and a tree whose error
  // is 0.003 above it still passes (within 0.005) while 0.01 above fails.
  const refs = [0, 1].map((seed) => ({
    dataset: "w",
    seed,
    scores: { hgb: 1.0 + seed * 0.1, xgboost: 2.0, linear: 1.5 },
  }));
  const runs = [0, 1].flatMap((seed) => [
    { dataset: "w", method: "tree", start: "default", seed, test: 1.003 + seed * 0.1 },
    { dataset: "w", method: "random", start: "default", seed, test: 1.01 + seed * 0.1 },
  ]);
  const r = scoreReport(runs, refs, {
    datasets: ["w"],
    methods: ["tree", "random"],
    starts: ["default"],
    metricOf: () => "mae" as MetricName,
  });
  deepEqual(r.best.w?.reference, "hgb");
  const tree = r.vsBest.find((v) => v.method === "tree")!,
    random = r.vsBest.find((v) => v.method === "random")!;
  ok(Math.abs(tree.vsBest.mean - -0.003) < 1e-12 && tree.pass);
  ok(Math.abs(random.vsBest.mean - -0.01) < 1e-12 && !random.pass);
  // tree − random, oriented: the tree's error is 0.007 lower on both seeds.
  const s = r.summed.find((x) => x.label === "tree − random")!;
  ok(Math.abs(s.diff.mean - 0.007) < 1e-12, String(s.diff.mean));
  ok(r.lines.some((l) => l.includes("ref hgb (best)")));
});

Deno.test({
  name: "refs.py scores predictions exactly as src/tabular/metrics.ts does",
  ignore: needs(FILE, "the Python metric check", NO_PY),
  fn: async () => {
    const rng = mulberry32(7);
    const n = 60;
    const cases: { metric: MetricName; task: "binary" | "multiclass" | "regression"; k: number }[] = [
      { metric: "accuracy", task: "binary", k: 1 },
      { metric: "auc", task: "binary", k: 1 },
      { metric: "logloss", task: "binary", k: 1 },
      { metric: "accuracy", task: "multiclass", k: 3 },
      { metric: "auc", task: "multiclass", k: 3 },
      { metric: "logloss", task: "multiclass", k: 3 },
      { metric: "r2", task: "regression", k: 1 },
      { metric: "rmse", task: "regression", k: 1 },
      { metric: "mae", task: "regression", k: 1 },
    ];
    for (const c of cases) {
      const y = Array.from(
        { length: n },
        () => c.task === "regression" ? rng() * 10 : Math.floor(rng() * (c.k === 1 ? 2 : c.k)),
      );
      let values: number[];
      if (c.task === "multiclass") {
        values = Array.from({ length: n }, () => {
          const r = [rng(), rng(), rng()], s = r[0]! + r[1]! + r[2]!;
          // Rounded probabilities make ties, which the AUC must rank the same way.
          return r.map((v) => Math.round(v / s * 10) / 10);
        }).flat();
      } else values = y.map((v) => c.task === "regression" ? v + rng() - 0.5 : Math.round(rng() * 10) / 10);
      const ours = score(c.metric, y, { task: c.task, k: c.k, values: Float64Array.from(values) });
      const p = c.k === 1
        ? values
        : Array.from({ length: n }, (_, i) => values.slice(i * c.k, (i + 1) * c.k));
      const child = new Deno.Command(PYTHON, {
        args: [`${ROOT}scripts/bench/refs.py`, "--score"],
        stdin: "piped",
        stdout: "piped",
      }).spawn();
      const w = child.stdin.getWriter();
      await w.write(new TextEncoder().encode(JSON.stringify({ metric: c.metric, y, p })));
      await w.close();
      const out = await child.output();
      ok(out.success);
      const theirs = JSON.parse(new TextDecoder().decode(out.stdout)) as number;
      ok(Math.abs(ours - theirs) < 1e-9, `${c.metric} ${c.task}: ${ours} vs ${theirs}`);
    }
  },
});

/** 300 rows: y = 3·x1 + (g = "b") − 2·[flag], a few missing cells, a text column the references drop. */
function writeToy(path: string): void {
  const rng = mulberry32(3);
  const lines = ["x1,g,flag,note,y"];
  for (let i = 0; i < 300; i++) {
    const x1 = rng() * 4, g = "abc"[Math.floor(rng() * 3)]!, flag = rng() < 0.5;
    const y = 3 * x1 + (g === "b" ? 1 : 0) - (flag ? 2 : 0) + 0.1 * rng();
    const note = `row number ${i} says ${Math.floor(rng() * 1000)}`;
    lines.push(
      [i % 17 === 0 ? "" : x1.toFixed(4), i % 23 === 0 ? "NA" : g, flag ? "yes" : "no", note, y.toFixed(4)]
        .join(","),
    );
  }
  Deno.writeTextFileSync(path, lines.join("\n") + "\n");
}

Deno.test({
  name: "references() fit on the given rows and score the given test rows",
  ignore: needs(FILE, "the reference fits", NO_PY),
  fn: async () => {
    const tmp = Deno.makeTempDirSync({ prefix: "arrow-refs-" });
    try {
      writeToy(`${tmp}/toy.csv`);
      const split = arrowSplit(`${tmp}/toy.csv`, "y", 1, "r2");
      equal(split.dev.length + split.heldout.length + split.test.length, 300);
      const r = await references(`${tmp}/toy.csv`, "y", "r2", 1, {
        fit: [...split.dev, ...split.heldout],
        test: split.test,
      }, tmp);
      // The signal is nearly linear: every reference explains most of the variance on the test rows.
      for (const k of ["hgb", "xgboost", "linear"] as const) ok(r.scores[k] > 0.8, `${k}: ${r.scores[k]}`);
      // Fit on 10 rows, the boosted trees cannot split (20 rows per leaf at least): the fit rows are the ones given.
      const few = await references(`${tmp}/toy.csv`, "y", "r2", 1, {
        fit: split.dev.slice(0, 10),
        test: split.test,
      }, tmp);
      ok(few.scores.hgb < 0.05, String(few.scores.hgb));
      // Scored on complete training rows the linear model's error is about the noise's; on rows whose x1 is
      // missing (imputed) it is far larger: the test rows are the ones given.
      const complete = split.dev.filter((i) => i % 17 !== 0 && i % 23 !== 0).slice(0, 20);
      const lacking = split.dev.filter((i) => i % 17 === 0);
      const onComplete = await references(
        `${tmp}/toy.csv`,
        "y",
        "mae",
        1,
        { fit: split.dev, test: complete },
        tmp,
      );
      const onLacking = await references(
        `${tmp}/toy.csv`,
        "y",
        "mae",
        1,
        { fit: split.dev, test: lacking },
        tmp,
      );
      ok(onComplete.scores.linear < 0.15, String(onComplete.scores.linear));
      ok(onLacking.scores.linear > 1, String(onLacking.scores.linear));
      deepEqual([...Deno.readDirSync(tmp)].map((e) => e.name), ["toy.csv"]);
    } finally {
      Deno.removeSync(tmp, { recursive: true });
    }
  },
});

Deno.test("runSplit() reads a run's splits.json, checks it against loadData, and is null without one", () => {
  const tmp = Deno.makeTempDirSync({ prefix: "arrow-splits-" });
  try {
    writeToy(`${tmp}/toy.csv`);
    const s = arrowSplit(`${tmp}/toy.csv`, "y", 0, "r2");
    equal(runSplit(tmp, s), null);
    Deno.writeTextFileSync(`${tmp}/splits.json`, JSON.stringify({ ...s, seed: 0, target: "y" }));
    deepEqual(runSplit(tmp, s), { dev: s.dev, heldout: s.heldout, test: s.test });
    const other = arrowSplit(`${tmp}/toy.csv`, "y", 1, "r2");
    Deno.writeTextFileSync(`${tmp}/splits.json`, JSON.stringify(other));
    throws(() => runSplit(tmp, s), /splits\.json: its dev rows .* differ from the split recomputed/);
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});
