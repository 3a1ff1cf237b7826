/**
 * The merge gate is the only reader of held-out labels, and its queries are counted and capped: checked on
 * the source (no other module of the tree room touches the held-out or test rows) and on a real run whose
 * budget runs out after the baseline.
 *
 * @module
 */
import { deepEqual, equal } from "node:assert/strict";
import { startTree } from "../src/tree/run.ts";

const SRC = new URL("../src/tree/", import.meta.url).pathname;
const CSV = new URL("./fixtures/tree/small.csv", import.meta.url).pathname;

Deno.test("only gate.ts reads held-out or test rows in the tree room (data.ts only counts them)", () => {
  const readers: string[] = [];
  const walk = (dir: string) => {
    for (const f of Deno.readDirSync(`${SRC}${dir}`)) {
      if (f.isDirectory) walk(`${dir}${f.name}/`);
      if (!f.name.endsWith(".ts") || f.name.endsWith("_test.ts")) continue;
      const text = Deno.readTextFileSync(`${SRC}${dir}${f.name}`);
      for (const m of text.matchAll(/splits\.(heldout|test)\b(\.length)?/g)) {
        if (!m[2]) readers.push(`${f.name}: ${m[0]}`);
      }
    }
  };
  walk("");
  deepEqual(readers.map((r) => r.split(":")[0]).filter((f) => f !== "gate.ts"), []);
  // The held-out query, the final test, and the references' rows (the refit's dev + held-out, the test).
  equal(readers.length, 4, readers.join("; "));
});

Deno.test("the held-out budget caps the gate's queries, and every label read is a counted query", async () => {
  const runsDir = Deno.makeTempDirSync({ prefix: "arrow-tree-gate-" });
  try {
    const out = await startTree({
      runDir: `${runsDir}/run`,
      runsDir,
      data: CSV,
      target: "label",
      cycles: 2,
      executors: 1,
      seed: 2,
      ideator: "library",
      search: "greedy",
      insights: false,
      heldoutBudget: 1,
      observeMs: 5000,
      wallMs: 60_000,
      bwrap: null,
    });
    const s = out.state;
    equal(s.heldout.used, 1);
    equal(out.gateReads.heldout, 1);
    equal(s.incumbent, "n0");
    for (const id of s.order.slice(1)) {
      const n = s.nodes[id]!;
      equal(n.heldout, null, `${id} never reached held-out`);
      if (n.gate !== null) equal(n.gate, "skipped: budget");
    }
    equal(
      out.gateReads.test,
      4,
      "the final test scores the starting artifact once, and each reference once (refit, strong default, trivial)",
    );
  } finally {
    Deno.removeSync(runsDir, { recursive: true });
  }
});
