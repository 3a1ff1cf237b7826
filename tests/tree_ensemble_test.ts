/**
 * Ensembles of evaluated nodes: the selection (greedy forward selection on pooled out-of-fold predictions)
 * pinned on made-up predictions; on a real run, an ensemble node measured from its members' kept dev
 * predictions alone (the same numbers whatever the held-out and test labels are), refit member by member,
 * saved under model/members/ and predicted by `arrow tree predict` as the weighted average of its members;
 * the residual summary and the LLM prompt made from it likewise blind to held-out and test rows.
 *
 * @module
 */
import { anchoredBlend } from "../src/tree/confirm.ts";
import { deepEqual, equal, ok } from "node:assert/strict";
import {
  blend,
  caruana,
  ensembleExec,
  ensembleHypothesis,
  keepOof,
  lossView,
  oofPath,
  parentEvidence,
  readOof,
} from "../src/tree/ensemble.ts";
import { userPrompt } from "../src/tree/ideate/llm_ideator.ts";
import { startTree } from "../src/tree/run.ts";
import { dataFiles, devSample, loadData, SAMPLE_ROWS, type TreeData } from "../src/tree/data.ts";
import { MergeGate } from "../src/tree/gate/gate.ts";
import { writeModel } from "../src/tree/model_dir.ts";
import { predictFile } from "../src/tree/predict.ts";
import { ProcJournal } from "../src/runtime/proc/proc_journal.ts";
import { chain, loadSteps, parseArtifact } from "../src/tree/execute/harness/compose.ts";
import type { Prediction } from "../src/tabular/mod.ts";
import type { TreeState } from "../src/tree/types.ts";

const CSV = new URL("./fixtures/tree/small.csv", import.meta.url).pathname;
const reg = (values: number[]): Prediction => ({
  task: "regression",
  k: 1,
  values: Float64Array.from(values),
});

Deno.test("caruana: two members that err on different rows are averaged; a dominated one is left out", () => {
  const y = [0, 0, 10, 10];
  // a is right on the first half, b on the second: their average is closer everywhere than either.
  const a = reg([0, 0, 4, 4]), b = reg([6, 6, 10, 10]), c = reg([9, 9, 1, 1]);
  const got = caruana([{ id: "a", oof: a }, { id: "b", oof: b }, { id: "c", oof: c }], y, "rmse");
  ok(got);
  deepEqual(got.members.map((m) => m.node), ["a", "b"]);
  equal(got.members.reduce((t, m) => t + m.weight, 0), 1);
  // A blend can only be chosen when it beats the best single candidate on the pooled rows.
  const single = caruana([{ id: "a", oof: reg([0, 0, 10, 10]) }, { id: "b", oof: b }], y, "rmse");
  equal(single, null);
  deepEqual(Array.from(blend([a, b], [0.5, 0.5]).values), [3, 3, 7, 7]);
});

Deno.test("caruana under log-loss picks the same members and score from the true-class column alone", () => {
  let seed = 5;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const n = 200, k = 4;
  const y = Float64Array.from({ length: n }, () => Math.floor(rnd() * k));
  const cands = Array.from({ length: 6 }, (_, c) => {
    const values = new Float64Array(n * k);
    for (let i = 0; i < n; i++) {
      let t = 0;
      for (let j = 0; j < k; j++) t += values[i * k + j] = rnd() + (j === y[i] && (i + c) % 3 ? 1 : 0);
      for (let j = 0; j < k; j++) values[i * k + j]! /= t;
    }
    return { id: `n${c}`, oof: { task: "multiclass" as const, k, values } };
  });
  const whole = caruana(cands, y, "logloss");
  const view = lossView(cands, y, "logloss");
  equal(view.cands[0]!.oof.k, 1);
  const column = caruana(view.cands, view.y, "logloss");
  ok(whole && column);
  deepEqual(column.members, whole.members);
  ok(Object.is(column.score, whole.score), `${column.score} vs ${whole.score}`);
  // Other losses, and one-output predictions, are left as they are.
  equal(lossView(cands, y, "squared").cands[0]!.oof.k, k);
});

Deno.test("readOof gives back what keepOof was handed while the file stays as written, and reads it after", () => {
  const dir = Deno.makeTempDirSync({ prefix: "arrow-oof-" });
  try {
    const target = { name: "y", task: "regression" as const, classes: [], y: new Float64Array(3) };
    const preds = [reg([1, 2]), reg([3])];
    keepOof(dir, "n1", JSON.stringify({ k: 1, folds: [[1, 2], [3]] }), preds);
    equal(readOof(dir, "n1", target as never, [2, 1]), preds, "the very predictions handed over");
    // Rewritten behind the cache's back (another size): read from the file again.
    Deno.writeTextFileSync(oofPath(dir, "n1"), JSON.stringify({ k: 1, folds: [[10, 20], [30.5]] }));
    deepEqual(readOof(dir, "n1", target as never, [2, 1])!.map((p) => Array.from(p.values)), [[10, 20], [
      30.5,
    ]]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

function poisoned(data: TreeData): TreeData {
  const y = Float64Array.from(data.task.target.y);
  for (const r of [...data.task.splits.heldout, ...data.task.splits.test]) y[r] = 1 - y[r]!;
  return { ...data, task: { ...data.task, target: { ...data.task.target, y } } };
}

Deno.test("an ensemble is chosen, measured, refit and predicted from dev rows and its members alone", async () => {
  const runsDir = Deno.makeTempDirSync({ prefix: "arrow-tree-ensemble-" });
  try {
    const runDir = `${runsDir}/run`;
    const out = await startTree({
      runDir,
      runsDir,
      data: CSV,
      target: "label",
      metric: "logloss",
      cycles: 3,
      executors: 2,
      seed: 1,
      ideator: "library",
      search: "tree",
      insights: true,
      observeMs: 5000,
      wallMs: 60_000,
      bwrap: null,
    });
    const s: TreeState = out.state;
    const ens = s.order.map((id) => s.nodes[id]!).filter((n) => n.artifact.members);
    ok(ens.length >= 1, "the tree proposed an ensemble");
    const e = ens[0]!;
    ok(e.dev, "the ensemble was measured");
    equal(e.exhausted, true);
    const data = loadData(CSV, "label", { seed: 1, metric: "logloss" });
    // Kept out-of-fold predictions cover the dev folds' rows only.
    const kept = JSON.parse(Deno.readTextFileSync(oofPath(runDir, e.artifact.members![0]!.node)));
    deepEqual(
      kept.folds.map((f: number[]) => f.length / kept.k),
      data.task.splits.folds.map((f) => f.valid.length),
    );
    // Its measurement and its choice do not move when every held-out and test label is flipped.
    const again = ensembleExec(runDir, s, e.id, data);
    // Beside its folds, its per-row comparison with the start on the same dev rows (what the end candidate
    // is chosen by), as the step recorded it.
    deepEqual(again.recomputed, { folds: e.dev!.folds, vs_start: e.oof, vs_parent: e.insight?.rows });
    ok(e.oof && e.oof.n === data.task.splits.dev.length, "compared with the start on every dev row");
    deepEqual(ensembleExec(runDir, s, e.id, poisoned(data)), again);
    const before = { ...s, order: s.order.filter((id) => id !== e.id && !s.nodes[id]!.artifact.members) };
    deepEqual(ensembleHypothesis(runDir, before, poisoned(data)), ensembleHypothesis(runDir, before, data));
    // The blend anchored at the start is chosen from dev rows alone too.
    const anchored = anchoredBlend(runDir, before, data);
    ok(anchored?.members?.some((m) => m.node === "n0"), "the anchored blend holds the start");
    deepEqual(anchoredBlend(runDir, before, poisoned(data)), anchored);
    // Where the root errs (its residual summary) and the LLM prompt made from it: dev rows only, likewise.
    const evidence = parentEvidence(runDir, s, data, "n0");
    ok(evidence?.length, "the root's residuals were summarised");
    deepEqual(parentEvidence(runDir, s, poisoned(data), "n0"), evidence);
    const prompt = userPrompt(s, "n0", [], evidence);
    ok(prompt.includes("Where the parent errs"), prompt);
    equal(userPrompt(s, "n0", [], parentEvidence(runDir, s, poisoned(data), "n0")), prompt);
    // Its sample rows are the first lines of the executors' own dev file: no held-out or test row.
    // What the root relies on: importances its recomputation measured on the dev folds' validation rows (the
    // executors' own dev file), named by the data's columns, never the target; shown in the prompt.
    const imp = s.nodes.n0!.importance ?? {};
    ok(Object.keys(imp).length, "the root's importances were measured");
    ok(Object.keys(imp).every((c) => c !== "label" && s.dataset.columns.some((d) => d.name === c)));
    ok(prompt.includes("What the parent relies on"), prompt);
    const samples = devSample(runDir);
    const devLines = Deno.readTextFileSync(dataFiles(runDir).dev).split("\n");
    deepEqual(samples, devLines.slice(0, SAMPLE_ROWS + 1));
    const shown = userPrompt(s, "n0", [], evidence, samples);
    ok(shown.includes(`The first ${SAMPLE_ROWS} dev rows`) && shown.includes(samples[1]!), shown);

    // Refit member by member on dev + held-out, saved under model/members/, predicted as the weighted mean.
    const files = dataFiles(runDir);
    const sandbox = {
      runDir,
      runsDir,
      dataDir: files.dir,
      taskFile: files.task,
      devFile: files.dev,
      userCsv: CSV,
      bwrap: null,
    };
    const journal = new ProcJournal(runDir);
    const gate = new MergeGate(data, sandbox, {
      observeMs: 5000,
      wallMs: 60_000,
      journal,
      logDir: `${runDir}/logs`,
    });
    // The final test scores the start and the best at once; a best that is an ensemble holding a node
    // scored beside it shares that node's prediction (once, not two children on one features file).
    const member = e.artifact.members![0]!.node;
    const [alone, blended] = await Promise.all([gate.test(s, member), gate.test(s, e.id)]);
    ok(alone.score !== null && blended.score !== null, `${alone.problem} ${blended.problem}`);
    equal(alone.score, (await gate.test({ ...s, tick: s.tick + 1 }, member)).score);
    const { refs, refit } = await gate.references(s, e.id);
    ok(refs.refit?.score !== null, refs.refit?.problem ?? "");
    equal(refit.members?.length, e.artifact.members!.length);
    const m = writeModel(runDir, s, data, e.id, refit, refs.refit!.score);
    ok(m?.members?.length);
    const loader = async (dir: string, target: string) => {
      const manifest = parseArtifact(JSON.parse(Deno.readTextFileSync(`${dir}/artifact.json`)));
      return chain(await loadSteps(dir, manifest), target)!;
    };
    const csvRows = Deno.readTextFileSync(CSV).trim().split("\n");
    const predicted = await predictFile(runDir, CSV, loader);
    equal(predicted.rows, csvRows.length - 1);
    ok(predicted.ignored.includes("label"));
    const lines = predicted.csv.trim().split("\n");
    equal(lines[0], "row,prediction,p_no,p_yes", "the classes in the file's own words");
    const p = lines.slice(1).map((l) => Number(l.split(",")[3]));
    ok(p.every((x) => x >= 0 && x <= 1));
  } finally {
    Deno.removeSync(runsDir, { recursive: true });
  }
});
