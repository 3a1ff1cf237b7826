/**
 * A newcomer's classification target with classes the split must mind: a class of one row (whose turn in
 * the stratified split would send it to the test part) keeps its row in dev, so every executor's rows hold
 * every class and the run reaches the gate and the final test — said as a note; and a column that names its
 * rows (a class per row, or nearly) is refused before any run directory exists.
 *
 * @module
 */
import { equal, match, ok } from "node:assert/strict";
import { arrow, treeOnce } from "./helpers/cli.ts";

/** 200 rows of `x,kind`: "a" 102 rows, then "b" on one row (line 104), then "c" 97 rows; x tells a from c. */
function rareClass(): string {
  const lines = ["x,kind"];
  for (let i = 0; i < 200; i++) {
    const kind = i < 102 ? "a" : i === 102 ? "b" : "c";
    const x = (kind === "a" ? 0 : kind === "b" ? 5 : 10) + ((i * 37) % 11) / 3;
    lines.push(`${x.toFixed(3)},${kind}`);
  }
  return lines.join("\n") + "\n";
}

Deno.test("a class of one row keeps it in dev: every fit sees every class, and the run reaches its final test", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "arrow-newcomer-classes-" });
  try {
    Deno.writeTextFileSync(`${dir}/rare.csv`, rareClass());
    const r = await treeOnce(`${dir}/rare.csv`, "kind", `${dir}/runs`);
    equal(r.code, 0, r.stderr);
    match(
      r.stderr,
      /^note: target "kind": 1 class has fewer than 3 rows \("b" \(1\)\): each keeps a dev row/m,
    );
    const runDir = r.stdout.match(/→ (\S+)/)![1]!;
    const splits = JSON.parse(Deno.readTextFileSync(`${runDir}/splits.json`));
    // Row 102 (0-based, the one "b") is a dev row; held-out and test hold none of it.
    ok(splits.dev.includes(102), "the lone b row is in dev");
    const state = JSON.parse(Deno.readTextFileSync(`${runDir}/state.json`));
    equal(state.nodes.n0.status === "failed-informative", false, JSON.stringify(state.nodes.n0));
    ok(typeof state.nodes.n0.dev?.mean === "number", JSON.stringify(state.nodes.n0));
    ok(typeof state.final.start === "number" && state.final.problem === null, JSON.stringify(state.final));
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a target that names its rows (a class on each, or nearly) is refused before any run directory exists", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "arrow-newcomer-classes-" });
  try {
    const lines = ["price,model"];
    for (let i = 0; i < 60; i++) {
      lines.push(`${10 + i},Model ${String.fromCharCode(65 + (i % 26))}${Math.floor(i / 2)}`);
    }
    Deno.writeTextFileSync(`${dir}/cars.csv`, lines.join("\n") + "\n");
    const r = await arrow([
      "tree",
      "--data",
      `${dir}/cars.csv`,
      "--target",
      "model",
      "--runs-dir",
      `${dir}/runs`,
    ]);
    equal(r.code, 1, r.stderr);
    match(r.stderr, /the target "model" has 60 classes over 60 rows \(60 of them on a single row\)/);
    match(r.stderr, /is it a name or an id\?/);
    let made = true;
    try {
      Deno.statSync(`${dir}/runs`);
    } catch {
      made = false;
    }
    equal(made, false, "no run directory");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
