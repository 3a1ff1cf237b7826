/**
 * Successive halving's first rung in a real tree run: each cycle screens `screen` × executors library
 * candidates on the first dev folds, keeps the best by their rows' gain over the parent's, records every
 * screen, never proposes a screened candidate under the same parent again, and does it the same way twice.
 *
 * @module
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { startTree } from "../src/tree/run.ts";
import { renderTreeReport } from "../src/tree/report.ts";
import { TreeStore } from "../src/tree/store.ts";
import { loadData } from "../src/tree/data.ts";
import { screenFolds } from "../src/tree/execute/harness/inputs.ts";
import type { TreeEvent, TreeState } from "../src/tree/types.ts";

const CSV = new URL("./fixtures/tree/small.csv", import.meta.url).pathname;

async function grow(runsDir: string, name: string, screen: number) {
  const runDir = `${runsDir}/${name}`;
  const out = await startTree({
    runDir,
    runsDir,
    data: CSV,
    target: "label",
    metric: "logloss",
    cycles: 2,
    executors: 2,
    seed: 4,
    ideator: "library",
    search: "tree",
    insights: true,
    screen,
    observeMs: 5000,
    wallMs: 60_000,
    bwrap: null,
  });
  const store = TreeStore.open(`${runDir}/tree.db`);
  const events = store.events();
  store.close();
  return { s: out.state, events };
}

const proposals = (events: TreeEvent[]) =>
  events.filter((e): e is Extract<TreeEvent, { e: "proposed" }> => e.e === "proposed");

Deno.test("a tree run screens three candidates per executor, measures the best two in full, and records every screen", async () => {
  const runsDir = Deno.makeTempDirSync({ prefix: "arrow-tree-screen-" });
  try {
    const { s, events } = await grow(runsDir, "a", 3);
    const data = loadData(CSV, "label", { seed: 4, metric: "logloss" });
    const sizes = data.task.splits.folds.map((f) => f.valid.length);
    const screenRows = sizes.slice(0, screenFolds(sizes)).reduce((t, n) => t + n, 0);
    ok(screenRows < data.task.splits.dev.length, "a screen fits fewer rows than a cross-validation");
    const ps = proposals(events);
    ok(ps.length >= 2);
    for (const p of ps) {
      const sc = p.screened ?? [];
      equal(sc.length, 6, "screen × executors candidates");
      const promoted = sc.filter((c) => c.promoted);
      equal(promoted.length, 2);
      // The hypotheses measured in full are the promoted ones (then the tree's ensembles and blends).
      deepEqual(
        p.hypotheses.filter((h) => h.family !== "ensemble").map((h) => h.key).sort(),
        promoted.map((c) => c.key).sort(),
      );
      // The first cycle, before any screen is evidence: promoted by the z of their rows' gain over the
      // parent's (later ones shrink it toward the family's screens so far).
      if (p === ps[0]) {
        const zs = sc.filter((c) => c.gain).map((c) => c.gain!.z).sort((a, b) => b - a);
        for (const c of promoted) ok(!c.gain || c.gain.z >= zs[1]!, `${c.key} is among the two surest`);
      }
      for (const c of sc) if (c.gain) equal(c.gain.n, screenRows, "the screen's rows are dev rows");
      // Never proposed there again.
      const parent = s.nodes[p.parent]!;
      const keys = parent.children.map((c) => s.nodes[c]!.hypothesis!.key);
      equal(new Set(keys).size, keys.length);
    }
    const root = s.nodes.n0!;
    ok((root.screened ?? []).length >= 6, "the screens stay on their parent");
    ok(renderTreeReport(s).includes("What the screens measured"));
    // The same run again: the same screens, the same tree.
    const again = await grow(runsDir, "b", 3);
    const strip = (t: TreeState) => JSON.stringify({ nodes: t.nodes, order: t.order, final: t.final });
    equal(strip(again.s), strip(s));
    // --screen 1: nothing screened.
    const plain = await grow(runsDir, "c", 1);
    ok(proposals(plain.events).every((p) => !p.screened), "no screens with --screen 1");
    equal(plain.s.config.screen, undefined);
  } finally {
    Deno.removeSync(runsDir, { recursive: true });
  }
});
