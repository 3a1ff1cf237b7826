/**
 * bench:tree's `--ceiling` (scripts/bench/ceiling.ts): after a run has ended, every candidate is scored against
 * the start on held-out and test — the benchmark's reading, never the run's. Checked on a real run: every
 * candidate is scored, what the run kept is the admitted node's test gain, and the run's record (its events,
 * its state) is untouched by the reading.
 *
 * @module
 */
import { equal, ok } from "node:assert/strict";
import { startTree } from "../src/tree/run.ts";
import { TreeStore } from "../src/tree/store.ts";
import { type Ceiling, ceilingLines, ceilingOf } from "../scripts/bench/ceiling.ts";

const CSV = new URL("./fixtures/tree/small.csv", import.meta.url).pathname;

Deno.test("ceilingOf() scores every candidate of an ended run against the start and leaves the run's record alone", async () => {
  const runsDir = Deno.makeTempDirSync({ prefix: "arrow-bench-ceiling-" });
  try {
    const runDir = `${runsDir}/run`;
    const out = await startTree({
      runDir,
      runsDir,
      data: CSV,
      target: "label",
      cycles: 2,
      executors: 2,
      seed: 3,
      ideator: "library",
      search: "tree",
      insights: true,
      gateAt: "end",
      observeMs: 5000,
      wallMs: 60_000,
      bwrap: null,
    });
    const s = out.state;
    const before = TreeStore.open(`${runDir}/tree.db`);
    const events = before.events().length;
    before.close();
    const c = await ceilingOf(runDir, s, null);
    const candidates = s.order.slice(1).filter((id) => {
      const n = s.nodes[id]!;
      return (n.status === "evaluated" || n.status === "admitted") && n.oof && n.dev;
    });
    ok(candidates.length > 0, "the run measured candidates");
    equal(c.nodes.map((n) => n.node).join(","), candidates.join(","));
    for (const n of c.nodes) {
      ok(typeof n.heldoutZ === "number" && Number.isFinite(n.heldoutZ), `${n.node} has a held-out z`);
      ok(typeof n.testGain === "number" && Number.isFinite(n.testGain), `${n.node} has a test gain`);
      equal(n.passes, n.heldoutZ! >= c.bar);
      equal(n.devZ, s.nodes[n.node]!.oof!.z);
    }
    const sent = s.order.find((id) => s.nodes[id]!.gate === "admitted" || s.nodes[id]!.gate === "rejected");
    equal(c.nodes.find((n) => n.sent)?.node, sent);
    const admitted = c.nodes.find((n) => s.nodes[n.node]!.gate === "admitted");
    equal(c.kept, admitted?.testGain ?? 0);
    equal(c.passing, c.nodes.filter((n) => n.passes).length);
    equal(c.best, Math.max(0, ...c.nodes.filter((n) => n.passes).map((n) => n.testGain!)));
    const after = TreeStore.open(`${runDir}/tree.db`);
    equal(after.events().length, events, "the reading adds nothing to the run's events");
    after.close();
  } finally {
    Deno.removeSync(runsDir, { recursive: true });
  }
});

Deno.test("ceilingLines() averages kept and best over a group's runs and counts the nodes that pass", () => {
  const node = (passes: boolean, testGain: number) => ({
    node: "n1",
    path: "capacity",
    devZ: 1,
    heldoutZ: passes ? 3 : 0,
    passes,
    testGain,
    sent: false,
  });
  const a: Ceiling = {
    bar: 1.88,
    nodes: [node(true, 0.02), node(false, 0.05)],
    passing: 1,
    best: 0.02,
    kept: 0.01,
  };
  const b: Ceiling = { bar: 1.88, nodes: [node(false, 0.01)], passing: 0, best: 0, kept: 0 };
  const lines = ceilingLines([
    { dataset: "d", method: "tree", start: "default", ceiling: a },
    { dataset: "d", method: "tree", start: "default", ceiling: b },
    { dataset: "e", method: "tree", start: "default", ceiling: null },
  ]);
  const row = lines.find((l) => l.startsWith("| d |"));
  equal(row, "| d | default | tree | 2 | 3 | 1 | 1 | +0.0050 | +0.0100 |");
  ok(!lines.some((l) => l.startsWith("| e |")), "a run without a ceiling is not a row");
  equal(ceilingLines([{ dataset: "d", method: "tree", start: "default" }]).length, 0);
});
