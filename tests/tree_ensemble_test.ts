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
import { ensembleExec, ensemblePredictions } from "../src/tree/ensemble_exec.ts";
import { deepEqual, equal, ok } from "node:assert/strict";
import {
  blend,
  caruana,
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

/** `data` with every label of dev fold `f`'s rows flipped (0 ↔ 1). */
function flippedFold(data: TreeData, f: number): TreeData {
  const y = Float64Array.from(data.task.target.y);
  for (const r of data.task.splits.folds[f]!.valid) y[r] = 1 - y[r]!;
  return { ...data, task: { ...data.task, target: { ...data.task.target, y } } };
}

Deno.test("an ensemble is measured cross-fitted: each fold's predictions come from the choice made on the others", () => {
  // 18 dev rows in three folds, y = the row's number. Node a errs by +1 everywhere; node b is exact on fold 0
  // and errs by +1.2 elsewhere. On every dev row b is best alone (mean squared error 0.96 against 1), so the
  // choice made on all rows predicts fold 0 exactly; chosen on folds 1 and 2 alone (where a is better and
  // blending b in does not help), fold 0 gets a's predictions; folds 1 and 2, chosen on fold 0 and the
  // other, get b's.
  const runDir = Deno.makeTempDirSync({ prefix: "arrow-crossfit-" });
  try {
    const y = Array.from({ length: 18 }, (_, i) => i);
    const fold = (f: number) => y.slice(6 * f, 6 * f + 6);
    const a = [0, 1, 2].map((f) => fold(f).map((v) => v + 1));
    const b = [0, 1, 2].map((f) => fold(f).map((v) => (f === 0 ? v : v + 1.2)));
    keepOof(runDir, "a", JSON.stringify({ k: 1, folds: a }));
    keepOof(runDir, "b", JSON.stringify({ k: 1, folds: b }));
    const rmse = (f: number, p: number[][]) =>
      Math.sqrt(p[f]!.reduce((t, v, i) => t + (v - fold(f)[i]!) ** 2, 0) / 6);
    const dev = (p: number[][]) => {
      const folds = [0, 1, 2].map((f) => rmse(f, p));
      return { mean: folds.reduce((t, x) => t + x, 0) / 3, std: 0, folds };
    };
    const ens = (params: Record<string, string>) =>
      ({
        artifact: { members: [{ node: "b", weight: 1 }] },
        hypothesis: { params: { members: "b*1", ...params } },
      }) as unknown as TreeState["nodes"][string];
    const s = {
      order: ["a", "b", "e", "f"],
      nodes: {
        a: { id: "a", dev: dev(a) },
        b: { id: "b", dev: dev(b) },
        e: ens({ select: "forward", from: "a,b" }),
        f: ens({}),
      },
      config: { metric: "rmse", direction: "minimize" },
      dataset: { heldout: 6 },
      heldout: { budget: 2 },
    } as unknown as TreeState;
    const data = {
      task: {
        metric: "rmse",
        target: { task: "regression", y: Float64Array.from(y) },
        splits: { folds: [0, 1, 2].map((f) => ({ valid: Int32Array.from(fold(f).map((v) => v)) })) },
      },
    } as unknown as TreeData;
    const got = ensemblePredictions(runDir, s, "e", data);
    ok("preds" in got);
    deepEqual(got.preds.map((p) => Array.from(p.values)), [a[0], b[1], b[2]]);
    // The same ensemble measured with its weights as chosen on every dev row: b's exact predictions on fold 0.
    const fixed = ensemblePredictions(runDir, s, "f", data);
    ok("preds" in fixed);
    deepEqual(fixed.preds.map((p) => Array.from(p.values)), b);
    // Its measurement is the cross-fitted one: fold 0 scores a's error, not b's zero.
    const measured = ensembleExec(runDir, s, "e", data).recomputed;
    deepEqual(measured && "folds" in measured ? measured.folds : null, [1, rmse(1, b), rmse(2, b)]);
    // A node it was chosen among whose kept predictions are gone fails the measurement by name.
    Deno.removeSync(oofPath(runDir, "a"));
    equal(ensembleExec(runDir, s, "e", data).lesson, "the out-of-fold predictions of member a are gone");
  } finally {
    Deno.removeSync(runDir, { recursive: true });
  }
});

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
    // Every ensemble names the rule it was chosen by and the nodes it was chosen among, and is measured
    // cross-fitted: fold f's predictions do not move when every label of fold f is flipped.
    for (const node of ens) {
      ok(["forward", "anchored"].includes(String(node.hypothesis?.params.select)), node.id);
      ok(String(node.hypothesis?.params.from).split(",").length >= 2, node.id);
      const got = ensemblePredictions(runDir, s, node.id, data);
      ok("preds" in got, node.id);
      data.task.splits.folds.forEach((_, f) => {
        const flipped = ensemblePredictions(runDir, s, node.id, flippedFold(data, f));
        ok("preds" in flipped);
        deepEqual(flipped.preds[f], got.preds[f], `${node.id} fold ${f}`);
      });
    }
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
