/**
 * `arrow tree` against a sleeper: a starting artifact whose step behaves on every dev fold and on the
 * held-out rows, and reaches outside its lane only when it meets a final-test row — so its executor, its
 * recomputation and its merge-gate query are clean, and only the children that run its artifact at the end
 * (the final test and the refit on dev + held-out, both of which predict the test rows) can see it. Each of
 * them is a lane like any other: the attempt is a SCOPE_VIOLATION blamed on the node, with the path, the
 * operation and the layer that stopped it, in both sandbox modes; nothing lands; no prediction it made is
 * scored and no model is saved.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { arrow } from "./helpers/cli.ts";
import { denoDir, MODES } from "./helpers/hostile.ts";
import { exists } from "../src/cli/rundir.ts";
import { needs, NO_BWRAP } from "./helpers/needs.ts";
import { readCsvFile } from "../src/tabular/mod.ts";

const CSV = new URL("./fixtures/tree/small.csv", import.meta.url).pathname;

/** A step that writes `path` when the rows it transforms hold the row (x1, x2), and is an identity step. */
function sleeper(x1: number, x2: number, path: string): string {
  return [
    "type Row = Record<string, unknown>;",
    "export default {",
    "  fit: () => null,",
    "  transform: (_s: unknown, rows: Row[]) => {",
    `    if (rows.some((r) => r.x1 === ${x1} && r.x2 === ${x2})) {`,
    `      Deno.writeTextFileSync(${JSON.stringify(path)}, "the test rows were here");`,
    "    }",
    "    return rows;",
    "  },",
    "};",
  ].join("\n");
}

function tree(mode: (typeof MODES)[number], runsDir: string, home: string, extra: string[]) {
  return arrow(
    ["tree", "--data", CSV, "--target", "label", "--cycles", "1", "--executors", "1", "--runs-dir", runsDir]
      .concat("--json", ...extra, ...mode.flags),
    { env: { PATH: mode.path, HOME: home, DENO_DIR: denoDir() } },
  );
}

for (const mode of MODES) {
  Deno.test({
    name:
      `[${mode.name}] arrow tree: a step that reaches out only on final-test rows is blamed at the final test`,
    ignore: mode.name === "bwrap" && needs("tree_sleeper_test", "the bubblewrap mode", NO_BWRAP),
    fn: async () => {
      const tmp = Deno.makeTempDirSync({ prefix: "arrow-tree-sleeper-" });
      const home = `${tmp}/home`;
      Deno.mkdirSync(home);
      try {
        // The splits are a function of the data and the seed: a clean run names the test rows.
        const clean = await tree(mode, `${tmp}/clean`, home, []);
        equal(clean.code, 0, clean.stderr.slice(-2000));
        const splits = JSON.parse(Deno.readTextFileSync(`${JSON.parse(clean.stdout).run_dir}/splits.json`));
        const table = readCsvFile(CSV);
        const col = (name: string) => {
          const c = table.columns.find((c) => c.name === name);
          if (c?.kind !== "numeric") throw new Error(`${name} is not numeric`);
          return Array.from(c.values);
        };
        const [x1, x2] = [col("x1"), col("x2")];
        const key = (i: number) => `${x1[i]},${x2[i]}`;
        const count = new Map<string, number>();
        for (let i = 0; i < table.nRows; i++) count.set(key(i), (count.get(key(i)) ?? 0) + 1);
        const row = (splits.test as number[]).find((i) => count.get(key(i)) === 1);
        ok(row !== undefined, "a test row no other row shares");

        const start = `${tmp}/start`;
        Deno.mkdirSync(`${start}/steps`, { recursive: true });
        const outside = `${tmp}/sleeper-was-here.txt`;
        Deno.writeTextFileSync(`${start}/steps/sleeper.ts`, sleeper(x1[row]!, x2[row]!, outside));
        Deno.writeTextFileSync(
          `${start}/artifact.json`,
          JSON.stringify({
            format: "arrow-tree-artifact/1",
            steps: ["steps/sleeper.ts"],
            model: { stages: 20 },
          }),
        );
        const r = await tree(mode, `${tmp}/runs`, home, ["--start", `${start}/artifact.json`]);
        equal(r.code, 0, r.stderr.slice(-2000));
        const out = JSON.parse(r.stdout);
        const state = JSON.parse(Deno.readTextFileSync(`${out.run_dir}/state.json`));
        // Its executor and its gate query were clean: it is the start, measured on dev and held-out.
        equal(state.nodes.n0.gate, "baseline");
        ok(state.nodes.n0.heldout !== null);
        const sv = Deno.readTextFileSync(`${out.run_dir}/incidents.jsonl`).split("\n").filter(Boolean)
          .map((l) => JSON.parse(l)).filter((i) => i.type === "SCOPE_VIOLATION" && i.node === "n0");
        // One incident for the node, naming what each of the two children (final test, refit) tried.
        equal(sv.length, 1, JSON.stringify(sv));
        for (const inc of sv) {
          equal(inc.evidence.writer, "n0");
          deepEqual(inc.evidence.paths, [outside]);
          equal(inc.evidence.attempts.length, 2, JSON.stringify(inc.evidence.attempts));
          for (const a of inc.evidence.attempts) ok(a.op === "write" && a.stopped_by, JSON.stringify(a));
        }
        // What it predicted for the test rows is not scored, and no model of it is saved.
        equal(state.nodes.n0.test, null);
        equal(state.final.references.refit.score, null);
        ok(!exists(`${out.run_dir}/model/model.json`), "no model saved from a child that reached out");
        ok(!exists(outside), "nothing landed");
        const report = Deno.readTextFileSync(`${out.run_dir}/report/report.md`);
        ok(report.includes("SCOPE_VIOLATION"), report);
      } finally {
        Deno.removeSync(tmp, { recursive: true });
      }
    },
  });
}
