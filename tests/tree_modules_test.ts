/**
 * Every module the library ideator can write, for a real CSV, is imported and cross-validated with the
 * toolkit (fit on training folds only), alone and chained the way an artifact chains its steps.
 *
 * @module
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { crossValidate, type FeatureTransform } from "../src/tabular/mod.ts";
import { loadData } from "../src/tree/data.ts";
import { ARTIFACT_FORMAT } from "../src/tree/execute/executor.ts";
import { allIdeas, libraryIdeas } from "../src/tree/ideate/library.ts";
import { moduleSource } from "../src/tree/ideate/library_code.ts";
import { toolkitSpecifier } from "../src/tree/run.ts";
import { initialState } from "../src/tree/grow.ts";
import { ARTIFACT_FORMAT as HARNESS_FORMAT, chain } from "../src/tree/execute/harness/compose.ts";
import { fakeConfig } from "./tree_fake.ts";

const CSV = new URL("./fixtures/tree/small.csv", import.meta.url).pathname;

Deno.test("the library's modules import, fit on training folds and cross-validate on a real CSV", async () => {
  const tmp = Deno.makeTempDirSync({ prefix: "arrow-tree-modules-" });
  try {
    const data = loadData(CSV, "label", { seed: 1 });
    const s = initialState(
      fakeConfig({ toolkit: toolkitSpecifier(tmp), cycles: 1 }),
      data.info,
      "tree:small",
    );
    const space = libraryIdeas(s, "n0", 1000, 1);
    const families = new Set(space.map((h) => h.family));
    for (
      const f of [
        "missing_indicator",
        "ratio",
        "product",
        "binning",
        "rare_group",
        "frequency_encode",
        "target_encode",
        "text_features",
        "group_stats",
        "drop_column",
        "capacity",
        "log",
      ]
    ) {
      ok(families.has(f as never), `the space holds ${f}`);
    }
    equal(space.length, allIdeas(data.info.columns.filter((c) => c.name !== "label"), s.nodes.n0!).length);
    const dir = `${tmp}/nodes/n1/steps`;
    Deno.mkdirSync(dir, { recursive: true });
    const steps: FeatureTransform[] = [];
    const spec = { target: data.task.target, model: { stages: 15 } };
    for (const [i, h] of space.filter((h) => h.step).entries()) {
      const file = `${dir}/${String(i).padStart(3, "0")}.ts`;
      Deno.writeTextFileSync(file, h.step!.source);
      const step = (await import(`file://${file}`)).default as FeatureTransform;
      const cv = crossValidate(data.table, data.task.splits, { ...spec, transform: step }, "accuracy");
      ok(Number.isFinite(cv.mean), h.key);
      if (h.family !== "drop_column") steps.push(step);
    }
    const all = chain(steps.slice(0, 12), "label")!;
    const cv = crossValidate(data.table, data.task.splits, { ...spec, transform: all }, "accuracy");
    ok(cv.mean > 0.5, `chained steps still learn (accuracy ${cv.mean})`);
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});

Deno.test("the coordinator and the harness agree on the artifact format", () => {
  equal(ARTIFACT_FORMAT, HARNESS_FORMAT);
});

Deno.test("the library's group step counts the training rows that share a value: a surname, a ticket, an id", async () => {
  const tmp = Deno.makeTempDirSync({ prefix: "arrow-tree-group-" });
  try {
    const ctx = { toolkit: toolkitSpecifier(tmp), target: "label", classes: ["no", "yes"], seed: 1 };
    const src = moduleSource("text_features", ["who"], { part: "group" }, "group", ctx)!;
    const dir = `${tmp}/nodes/n1/steps`;
    Deno.mkdirSync(dir, { recursive: true });
    Deno.writeTextFileSync(`${dir}/001_text_features.ts`, src);
    const step = (await import(`file://${dir}/001_text_features.ts`)).default as FeatureTransform;
    const train = [
      "Braund, Mr. Owen",
      "Braund, Mrs. Ann",
      "113803",
      "113803",
      "113803",
      "Allen, Miss. E",
      null,
    ]
      .map((who) => ({ who, label: "no" }));
    const state = step.fit(train);
    const out = step.transform(state, [{ who: "braund, Master. Tom" }, { who: "113803" }, { who: "999" }, {
      who: null,
    }]).map((r) => (r as Record<string, unknown>)["who~group"]);
    deepEqual(out, [2, 3, 0, null]);
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});
