/**
 * A feature-engineering executor in miniature, for tests/tabular_fixtures_test.ts: started with
 * `deno run --no-npm --no-remote --allow-read=<csv>`, it imports the tabular toolkit, cross-validates a title
 * feature on the CSV and prints one JSON line; it also tries to read a second file it was not granted.
 *
 * @module
 */
import {
  crossValidate,
  defaultMetric,
  type FeatureTransform,
  makeSplits,
  makeTarget,
  readCsvFile,
} from "../src/tabular/mod.ts";

const [csv, targetName, forbidden] = Deno.args as [string, string, string];
const table = readCsvFile(csv);
const target = makeTarget(table, targetName);
const splits = makeSplits(target, { seed: 3, folds: 3 });
const title: FeatureTransform<null> = {
  fit: () => null,
  transform: (_s, rows) => rows.map((r) => ({ ...r, title: /, (\w+)\./.exec(String(r.Name))?.[1] ?? null })),
};
const metric = defaultMetric(target.task);
const cv = crossValidate(table, splits, { target, transform: title, model: { stages: 20 } }, metric);
let other = "allowed";
try {
  Deno.readTextFileSync(forbidden);
} catch (e) {
  other = e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied
    ? "denied"
    : String(e);
}
console.log(JSON.stringify({ task: target.task, metric, mean: cv.mean, folds: cv.folds.length, other }));
