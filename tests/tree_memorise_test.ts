/**
 * Cross-fold memorisation: a hypothesis module that remembers the labels of the rows it was fit on (in a
 * module variable, on globalThis, on Object.prototype, in the Cache API) and returns them as a feature when
 * the same rows come back as a later fold's validation rows. In one realm that attack works — shown first,
 * in-process, as the positive control; through the harness, where every fold is a fresh worker, it gets
 * nothing: no validation row is ever found in its memory. The harness runs a step in its own realm only when
 * the artifact lists the step file's content hash as the library's (Arrow checks that against its templates
 * when it writes the artifact): another hash, or the file changed since, and the step is isolated again.
 *
 * @module
 */
import { ok } from "node:assert/strict";
import { createHash } from "node:crypto";
import { crossValidate, type FeatureTransform } from "../src/tabular/mod.ts";
import { loadData, writeDataFiles } from "../src/tree/data.ts";
import { ARTIFACT_FORMAT } from "../src/tree/execute/executor.ts";
import { ProcJournal } from "../src/runtime/proc/proc_journal.ts";
import { runChild } from "../src/tree/execute/child.ts";
import { childCommand } from "../src/tree/execute/sandbox.ts";
import { testSandbox } from "./tree_fake.ts";

const CSV = new URL("./fixtures/tree/small.csv", import.meta.url).pathname;
const FIXTURE = new URL("./fixtures/tree/modules/memorises.ts", import.meta.url).pathname;
const source = Deno.readTextFileSync(FIXTURE).replaceAll("__TARGET__", "label");

Deno.test("a memorising module wins cross-validation in one realm, and gets nothing through the harness", async () => {
  const tmp = Deno.makeTempDirSync({ prefix: "arrow-tree-memo-" });
  try {
    const data = loadData(CSV, "label", { seed: 3 });
    const scope = `${tmp}/nodes/n1`;
    Deno.mkdirSync(`${scope}/steps`, { recursive: true });
    Deno.writeTextFileSync(`${scope}/steps/001_memo.ts`, source);
    Deno.writeTextFileSync(
      `${scope}/artifact.json`,
      JSON.stringify({ format: ARTIFACT_FORMAT, steps: ["steps/001_memo.ts"], model: {} }),
    );

    // Positive control: the same module, every fold in this one realm.
    const step = (await import(`file://${scope}/steps/001_memo.ts`)).default as FeatureTransform;
    const inProcess = crossValidate(data.table, data.task.splits, {
      target: data.task.target,
      transform: step,
    }, "accuracy");
    const later = inProcess.folds.slice(1).map((f) => f.score);
    ok(later.every((s) => s >= 0.95), `in one realm, later folds are memorised: ${later.join(", ")}`);

    // Through the harness: a fresh worker per fold.
    const files = writeDataFiles(tmp, data, 3);
    const ctx = testSandbox(tmp, files, CSV);
    Deno.mkdirSync(`${tmp}/audit`);
    Deno.mkdirSync(`${tmp}/.arrow`);
    let run = 0;
    /** Each fold's accuracy through the harness, the artifact listing `library` as the library's steps. */
    const harness = async (library: string[], onDisk = source): Promise<number[]> => {
      Deno.writeTextFileSync(`${scope}/steps/001_memo.ts`, onDisk);
      Deno.writeTextFileSync(
        `${scope}/artifact.json`,
        JSON.stringify({ format: ARTIFACT_FORMAT, steps: ["steps/001_memo.ts"], model: {}, library }),
      );
      Deno.writeTextFileSync(`${scope}/metrics.jsonl`, "");
      const cmd = childCommand(ctx, "execute", "n1", scope, `${tmp}/audit/a${run++}.jsonl`);
      const out = await runChild(cmd, {
        label: `memo${run}`,
        observeMs: 10_000,
        wallMs: 120_000,
        journal: new ProcJournal(tmp),
        metrics: `${scope}/metrics.jsonl`,
        logDir: `${tmp}/logs`,
      });
      ok(out.exit === 0, `the harness ran: ${out.stderrTail.join(" | ")}`);
      const folds = out.lines.filter((l) => typeof l.accuracy === "number").map((l) => l.accuracy as number);
      ok(folds.length === data.task.splits.folds.length, JSON.stringify(out.lines));
      return folds;
    };
    const isolated = (folds: number[]) => folds.every((s) => s < 0.95);
    const sha = (t: string) => createHash("sha256").update(t).digest("hex");
    const folds = await harness([]);
    ok(isolated(folds), `no fold is memorised through the harness: ${folds.join(", ")}`);
    // Only a step whose content hash Arrow recorded as its library's runs beside the encoders (in one
    // realm): the hash, and nothing else, decides. Another hash, or the file changed since it was
    // recorded, and the step is isolated again.
    const other = await harness([sha("export default {};")]);
    ok(isolated(other), `another module's hash earns nothing: ${other.join(", ")}`);
    const changed = await harness([sha(source)], source + "\n// changed after Arrow wrote it\n");
    ok(isolated(changed), `a changed file earns nothing: ${changed.join(", ")}`);
    const trusted = await harness([sha(source)]);
    ok(trusted.slice(1).every((s) => s >= 0.95), `a listed hash runs in one realm: ${trusted.join(", ")}`);
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});
