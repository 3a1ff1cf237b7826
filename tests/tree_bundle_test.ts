/**
 * Step modules bundled as `data:` URLs (src/tree/execute/harness/bundle.ts), so the artifact's workers need no read of
 * any scope: a module in the scope that a step imports is inlined (recursively, JSON too), anything outside
 * stays an absolute `file:` URL that the worker's own permissions refuse, circles are refused with a lesson.
 * Then end to end: a two-file artifact cross-validates through the harness in fresh workers, and a step
 * that imports a file outside its scope gets nothing and its executor fails with the reason.
 *
 * @module
 */
import { equal, ok, throws } from "node:assert/strict";
import { dirname, relative } from "node:path";
import { BundleError, bundleSteps } from "../src/tree/execute/harness/bundle.ts";
import { loadSteps } from "../src/tree/execute/harness/steps.ts";
import { loadData, writeDataFiles } from "../src/tree/data.ts";
import { ARTIFACT_FORMAT } from "../src/tree/execute/executor.ts";
import { ProcJournal } from "../src/runtime/proc/proc_journal.ts";
import { runChild } from "../src/tree/execute/child.ts";
import { childCommand } from "../src/tree/execute/sandbox.ts";
import { testSandbox } from "./tree_fake.ts";

const CSV = new URL("./fixtures/tree/small.csv", import.meta.url).pathname;
const TOOLKIT = new URL("../src/tabular/mod.ts", import.meta.url).pathname;

function write(dir: string, files: Record<string, string>): void {
  for (const [p, text] of Object.entries(files)) {
    Deno.mkdirSync(`${dir}/${p}`.replace(/\/[^/]*$/, ""), { recursive: true });
    Deno.writeTextFileSync(`${dir}/${p}`, text);
  }
}

const decoded = (url: string) => {
  const b = atob(url.slice(url.indexOf(",") + 1));
  return new TextDecoder().decode(Uint8Array.from(b, (c) => c.charCodeAt(0)));
};

Deno.test("bundleSteps() inlines the scope's modules, leaves the rest as file URLs, refuses circles", async () => {
  const tmp = Deno.makeTempDirSync({ prefix: "arrow-tree-bundle-" });
  try {
    const scope = `${tmp}/nodes/n1`;
    const rel = (from: string) => relative(dirname(`${scope}/${from}`), TOOLKIT);
    write(scope, {
      "steps/001_a.ts": `import { scale } from "./lib/helper.ts";
import type { Row } from ${JSON.stringify(rel("steps/001_a.ts"))};
import table from "../data/levels.json" with { type: "json" };
export default {
  fit: () => null,
  transform: (_s: unknown, rows: Row[]) => rows.map((r) => ({ ...r, y2: scale(Number(r.x1)) + table.k })),
};
`,
      "steps/lib/helper.ts": `import { mulberry32 } from ${JSON.stringify(rel("steps/lib/helper.ts"))};
export const scale = (x: number) => x * 2 + (typeof mulberry32 === "function" ? 0 : 1);
`,
      "data/levels.json": `{"k": 0.5}`,
      "steps/002_out.ts": `import secret from "../../../secret.ts";\nexport default secret;\n`,
      "steps/003_c1.ts": `import "./004_c2.ts";\nexport default {};\n`,
      "steps/004_c2.ts": `import "./003_c1.ts";\nexport default {};\n`,
    });
    write(tmp, { "secret.ts": `export default "SECRET-CONTENT";\n` });

    const [a] = bundleSteps(scope, ["steps/001_a.ts"]);
    ok(a!.startsWith("data:application/typescript;base64,"), a!.slice(0, 60));
    const text = decoded(a!);
    ok(!text.includes("./lib/helper.ts") && text.includes("data:application/typescript;base64,"), text);
    ok(text.includes("data:application/json;base64,"), "the JSON file is inlined");
    ok(text.includes(`file://${TOOLKIT}`), "the toolkit is imported by its absolute URL");
    const [step] = await loadSteps([{ path: "steps/001_a.ts", url: a! }]);
    const out = step!.transform(null, [{ x1: 3 }]) as { y2: number }[];
    equal(out[0]!.y2, 6.5);

    const [b] = bundleSteps(scope, ["steps/002_out.ts"]);
    const outside = decoded(b!);
    ok(outside.includes(`file://${tmp}/secret.ts`), outside);
    ok(!outside.includes("SECRET-CONTENT"), "a file outside the scope is never read into the bundle");

    throws(() => bundleSteps(scope, ["steps/003_c1.ts"]), (e: unknown) => {
      ok(e instanceof BundleError && /circle/.test(e.message), String(e));
      return true;
    });
    throws(() => bundleSteps(scope, ["steps/missing.ts"]), /cannot be read/);
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});

Deno.test("through the harness: a two-file step runs in its workers; a step importing outside its scope gets nothing", async () => {
  const tmp = Deno.makeTempDirSync({ prefix: "arrow-tree-bundle-run-" });
  try {
    const data = loadData(CSV, "label", { seed: 3 });
    const files = writeDataFiles(tmp, data, 3);
    const ctx = testSandbox(tmp, files, CSV);
    Deno.mkdirSync(`${tmp}/audit`);
    Deno.mkdirSync(`${tmp}/.arrow`);
    const run = async (id: string, steps: Record<string, string>) => {
      const scope = `${tmp}/nodes/${id}`;
      write(scope, steps);
      const list = Object.keys(steps).filter((p) => /^steps\/\d{3}_[a-z]+\.ts$/.test(p));
      Deno.writeTextFileSync(
        `${scope}/artifact.json`,
        JSON.stringify({ format: ARTIFACT_FORMAT, steps: list, model: {} }),
      );
      const out = await runChild(childCommand(ctx, "execute", id, scope, `${tmp}/audit/${id}.jsonl`), {
        label: id,
        observeMs: 10_000,
        wallMs: 120_000,
        journal: new ProcJournal(tmp),
        metrics: `${scope}/metrics.jsonl`,
        logDir: `${tmp}/logs`,
      });
      return { out, results: Deno.readTextFileSync(`${scope}/results.json`) };
    };
    const good = await run("n1", {
      "steps/001_ratio.ts": `import { ratio } from "./lib/ratio.ts";
export default { fit: () => null, transform: (_s: unknown, rows: Record<string, unknown>[]) => rows.map((r) => ({ ...r, q: ratio(r.x1, r.x2) })) };
`,
      "steps/lib/ratio.ts": `export const ratio = (a: unknown, b: unknown) =>
  typeof a === "number" && typeof b === "number" && b !== 0 ? a / b : null;
`,
    });
    equal(good.out.exit, 0, good.out.stderrTail.join(" | "));
    const claim = JSON.parse(good.results);
    equal(claim.folds.length, data.task.splits.folds.length);
    ok(Number.isFinite(claim.score), good.results);

    const bad = await run("n2", {
      "steps/001_peek.ts": `import rows from ${JSON.stringify(`../../../data/dev.csv`)} with { type: "text" };
export default { fit: () => null, transform: (_s: unknown, r: unknown[]) => (rows.length ? r : r) };
`,
    });
    equal(bad.out.exit, 3, bad.out.stderrTail.join(" | "));
    const lesson = JSON.parse(bad.results).error as string;
    ok(/001_peek\.ts cannot be loaded/.test(lesson) && /read access|NotCapable|denied/i.test(lesson), lesson);
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});
