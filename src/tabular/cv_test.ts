import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { crossValidate, evaluateOn, meanStd } from "./cv.ts";
import { type FeatureTransform, fitPipeline, predictPipeline, TransformError } from "./pipeline.ts";
import { mulberry32 } from "./prng.ts";
import { readTable } from "./read.ts";
import type { Row } from "./rows.ts";
import { makeSplits } from "./split.ts";
import { makeTarget } from "./target.ts";

/** Passengers whose survival follows the title inside a free-text name, plus noise columns. */
function passengers(n: number, seed: number) {
  const rng = mulberry32(seed);
  const lines = ["id,name,fare,port,survived"];
  for (let i = 0; i < n; i++) {
    const title = ["Mr.", "Mrs.", "Miss.", "Master."][Math.floor(rng() * 4)]!;
    const survived = title === "Mr." ? 0 : 1;
    const fare = rng() < 0.1 ? "" : (rng() * 100).toFixed(2);
    lines.push(`${i},"Person${i}, ${title} Given${i % 37}",${fare},${"SCQ"[i % 3]},${survived}`);
  }
  const table = readTable(lines.join("\n") + "\n", "passengers.csv");
  const target = makeTarget(table, "survived");
  return { table, target, splits: makeSplits(target, { seed, folds: 4 }) };
}

const title: FeatureTransform<null> = {
  fit: () => null,
  transform: (_s, rows) => rows.map((r) => ({ ...r, title: /, (\w+)\./.exec(String(r.name))?.[1] ?? null })),
};

Deno.test("crossValidate() scores each dev fold; a text-derived feature moves the score", () => {
  const { table, target, splits } = passengers(400, 1);
  const model = { stages: 30 };
  const base = crossValidate(table, splits, { target, model }, "accuracy");
  const withTitle = crossValidate(table, splits, { target, model, transform: title }, "accuracy");
  equal(base.folds.length, 4);
  deepEqual({ mean: base.mean, std: base.std }, meanStd(base.folds.map((f) => f.score)));
  ok(base.mean < 0.75, `without the title: ${base.mean}`);
  ok(withTitle.mean > 0.99, `with the title: ${withTitle.mean}`);
  equal(withTitle.direction, "higher");
  deepEqual(withTitle, crossValidate(table, splits, { target, model, transform: title }, "accuracy"));
});

Deno.test("crossValidate() fits transforms on training-fold rows only and never shows them a target", () => {
  const { table, target, splits } = passengers(200, 2);
  const fitted: number[][] = [];
  const seen: Row[][] = [];
  const spy: FeatureTransform<number> = {
    fit: (rows) => {
      ok(rows.every((r) => "survived" in r), "fit sees the training target");
      fitted.push(rows.map((r) => r.id as number));
      return rows.length;
    },
    transform: (_s, rows) => {
      seen.push(rows);
      return rows;
    },
  };
  crossValidate(table, splits, { target, transform: spy, model: { stages: 3 } }, "auc");
  equal(fitted.length, 4);
  fitted.forEach((ids, k) => deepEqual(ids, Array.from(splits.folds[k]!.train)));
  ok(seen.every((rows) => rows.every((r) => !("survived" in r))), "transform never sees a target");
  const heldout = new Set(Array.from(splits.heldout));
  ok(seen.flat().every((r) => !heldout.has(r.id as number)), "cross-validation never touches held-out rows");
});

Deno.test("evaluateOn() fits on dev and scores held-out rows; fitTransform serves the training rows", () => {
  const { table, target, splits } = passengers(300, 3);
  let trainCalls = 0;
  const oof: FeatureTransform<null> = {
    ...title,
    fitTransform: (rows) => {
      trainCalls++;
      return { state: null, rows: title.transform(null, rows.map(({ survived: _, ...r }) => r)) };
    },
  };
  const e = evaluateOn(
    table,
    splits.dev,
    splits.heldout,
    { target, transform: oof, model: { stages: 20 } },
    "accuracy",
  );
  equal(trainCalls, 1);
  ok(e.score > 0.99);
  equal(e.prediction.values.length, splits.heldout.length);
  deepEqual(e.fitted.schema?.columns.map((c) => [c.name, c.kind]), [
    ["id", "numeric"],
    ["name", "text"],
    ["fare", "numeric"],
    ["port", "categorical"],
    ["title", "categorical"],
  ]);
});

Deno.test("fitPipeline() turns a failing or malformed transform into a TransformError with its phase", () => {
  const { table, target, splits } = passengers(60, 4);
  const spec = (transform: FeatureTransform) => ({ target, transform, model: { stages: 2 } });
  throws(
    () =>
      fitPipeline(
        table,
        splits.dev,
        spec({
          fit: () => {
            throw new Error("boom");
          },
          transform: (_s, r) => r,
        }),
      ),
    (e) =>
      e instanceof TransformError && e.phase === "fit" &&
      /Cannot run the feature transform's fit: boom/.test(e.message),
  );
  throws(
    () => fitPipeline(table, splits.dev, spec({ fit: () => 0, transform: (_s, r) => r.slice(1) })),
    /returned \d+ rows for \d+/,
  );
  const late: FeatureTransform<number> = { fit: () => 0, transform: (_s, r) => (r.length < 30 ? [] : r) };
  const fitted = fitPipeline(table, splits.dev, spec(late as FeatureTransform));
  throws(
    () => predictPipeline(fitted, table, splits.test, spec(late as FeatureTransform)),
    (e) => e instanceof TransformError && e.phase === "transform",
  );
});

Deno.test("predictPipeline() reads other rows into the training schema: extra keys ignored, misfits missing", () => {
  const { table, target, splits } = passengers(120, 5);
  let training = true;
  const drift: FeatureTransform<null> = {
    fit: () => null,
    transform: (_s, rows) =>
      rows.map((r) => (training ? { ...r, k: 1 } : { ...r, k: "not a number", extra: 5 })),
  };
  const spec = { target, transform: drift, model: { stages: 5 } };
  const fitted = fitPipeline(table, splits.dev, spec);
  training = false;
  const p = predictPipeline(fitted, table, splits.test, spec);
  equal(p.values.length, splits.test.length);
  ok(!fitted.encoding.names.includes("extra"));
});
