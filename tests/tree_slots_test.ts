/**
 * Long-lived harness slots (src/tree/execute/slot_pool.ts): jobs run one after another in one process with the same
 * numbers a fresh child gives; each job is judged on its own — a hung job kills its slot and the next job
 * gets a fresh one, a job whose code reached outside its lane is blamed and the clean job after it on the
 * same slot is not; and a slot's wider view (every scope under nodes/) is not its jobs' code's view.
 *
 * @module
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { BWRAP, needs, NO_BWRAP } from "./helpers/needs.ts";
import { ProcJournal } from "../src/runtime/proc/proc_journal.ts";
import { runChild, signedLine } from "../src/tree/execute/child.ts";
import { loadData, writeDataFiles } from "../src/tree/data.ts";
import { ARTIFACT_FORMAT } from "../src/tree/execute/executor.ts";
import { childCommand } from "../src/tree/execute/sandbox.ts";
import { SlotPool } from "../src/tree/execute/slot_pool.ts";
import { testSandbox } from "./tree_fake.ts";

const CSV = new URL("./fixtures/tree/small.csv", import.meta.url).pathname;
const module = (name: string) =>
  Deno.readTextFileSync(new URL(`./fixtures/tree/modules/${name}.ts`, import.meta.url));
const noBwrap = needs("tree_slots_test", "the bubblewrap case", NO_BWRAP);

/** Reads a sibling's artifact: the slot may see it, the code of this job may not. */
const READS_SIBLING = (path: string) => `
let got = "";
try {
  got = Deno.readTextFileSync(${JSON.stringify(path)});
} catch {
  // refused
}
export default {
  fit: () => {
    if (got) throw new Error("LEAK: read a sibling's artifact");
    return null;
  },
  transform: (_s: unknown, rows: unknown[]) => rows,
};
`;

/** The predictions of a recomputation's line (its fit time aside). */
const folds = (text: string) => {
  const { k, folds } = JSON.parse(text);
  return { k, folds };
};

function scopeWith(runDir: string, node: string, source: string): string {
  const scope = `${runDir}/nodes/${node}`;
  Deno.mkdirSync(`${scope}/steps`, { recursive: true });
  Deno.writeTextFileSync(`${scope}/steps/001_step.ts`, source);
  Deno.writeTextFileSync(
    `${scope}/artifact.json`,
    JSON.stringify({ format: ARTIFACT_FORMAT, steps: ["steps/001_step.ts"], model: { stages: 20 } }),
  );
  return scope;
}

for (const mode of ["deno", "bwrap"] as const) {
  Deno.test({
    name: `slots (${mode}): one process for many jobs, each judged on its own`,
    ignore: mode === "bwrap" && noBwrap,
    fn: async () => {
      const tmp = Deno.makeTempDirSync({ prefix: "arrow-tree-slots-" });
      const pool = { current: null as SlotPool | null };
      try {
        const data = loadData(CSV, "label", { seed: 3 });
        const files = writeDataFiles(tmp, data, 3);
        const ctx = testSandbox(tmp, files, CSV, mode === "bwrap" ? BWRAP : null);
        const honest = scopeWith(tmp, "n1", module("honest"));
        const hangs = scopeWith(tmp, "n2", module("hangs"));
        const sneaky = scopeWith(tmp, "n3", READS_SIBLING(`${honest}/artifact.json`));
        const journal = new ProcJournal(tmp);
        const logDir = `${tmp}/logs`;
        const slots = pool.current = new SlotPool(ctx, journal, logDir);
        // Honest jobs are observed every 5 s, as a loaded machine may keep a child's first line back for
        // seconds; the hang is told within 300 ms observations, so its test stays short.
        const CALM = 5_000;
        const job = (node: string, scope: string, label: string, observeMs = CALM) =>
          slots.run({ mode: "recompute", node, scope, label, observeMs, wallMs: 120_000 });
        const why = (r: { exit: number | null; signal: unknown; hung: unknown; stderrTail: string[] }) =>
          `exit ${r.exit}, signal ${r.signal}, hung ${JSON.stringify(r.hung)}: ${r.stderrTail.join("\n")}`;

        // The reference: a fresh child, as without slots.
        Deno.mkdirSync(`${tmp}/audit`);
        Deno.mkdirSync(`${tmp}/.arrow`, { recursive: true });
        const fresh = await runChild(childCommand(ctx, "recompute", "n1", honest, `${tmp}/audit/r.jsonl`), {
          label: "fresh",
          observeMs: CALM,
          wallMs: 120_000,
          journal,
          stdin: "nonce-1",
          progress: true,
          logDir,
        });
        equal(fresh.exit, 0, why(fresh));
        const reference = signedLine(fresh.stdout, "nonce-1");
        ok(reference.ok);

        const a = await job("n1", honest, "a");
        const b = await job("n1", honest, "b");
        for (const r of [a, b]) {
          equal(r.exit, 0, why(r));
          deepEqual(r.escapes, []);
          const line = signedLine(r.stdout, r.nonce!);
          ok(line.ok, r.stdout);
          deepEqual(folds(line.text), folds(reference.text), "a slot's job predicts what a fresh child does");
        }
        equal(slots.started, 1, "both jobs ran in one process");

        const t0 = performance.now();
        const h = await job("n2", hangs, "h", 300);
        ok(h.hung, `the spinning fit is called hung (exit ${h.exit}, ${JSON.stringify(h.overBudget)})`);
        ok(performance.now() - t0 < 60_000, "long before its wall budget");
        const c = await job("n1", honest, "c");
        equal(c.exit, 0, why(c));
        equal(slots.started, 2, "the hung slot was replaced");

        const s = await job("n3", sneaky, "s");
        ok(
          s.escapes.some((e) => e.op === "read" && e.path === `${honest}/artifact.json`),
          `the sibling read is blamed: ${JSON.stringify(s.escapes)} ${s.stderrTail.join("\n")}`,
        );
        ok(!s.stderrTail.join("\n").includes("LEAK"), "and it got nothing");
        const d = await job("n1", honest, "d");
        equal(d.exit, 0, why(d));
        deepEqual(d.escapes, [], "the next job on the same slot is not blamed for it");
        equal(slots.started, 2);

        // An executor's job writes its claim and one metrics line per fold into its own scope.
        const ex = await slots.run({
          mode: "execute",
          node: "n1",
          scope: honest,
          label: "x",
          observeMs: CALM,
          wallMs: 120_000,
        });
        equal(ex.exit, 0, why(ex));
        equal(
          ex.lines.filter((l) => Number(l.step) >= 1).length,
          data.task.splits.folds.length,
          "a line per fold",
        );
        equal(JSON.parse(Deno.readTextFileSync(`${honest}/results.json`)).node, "n1");
      } finally {
        await pool.current?.close();
        Deno.removeSync(tmp, { recursive: true });
      }
    },
  });
}
