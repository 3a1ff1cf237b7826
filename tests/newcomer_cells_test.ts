/**
 * A newcomer's CSV with cells the reader must decide on: a numeric column holding a few texts (`inf`,
 * `unknown`) is read as numbers with those cells missing, and said with their lines — in the run and in
 * `tree predict`; a file whose only feature is one column with missing cells still reaches the gate (a
 * features file of one column must not lose its empty rows); and a file with nothing left to learn from is
 * refused before any run directory exists.
 *
 * @module
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { arrow } from "./helpers/cli.ts";

/** 240 rows of `x,y`: y follows x; every 25th x is missing, three hold texts (file lines 8, 50, 121). */
function oneColumn(): string {
  const lines = ["x,y"];
  for (let i = 0; i < 240; i++) {
    const x = ((i * 53) % 240) / 24;
    const cell = i === 6 ? "inf" : i === 48 ? "unknown" : i === 119 ? "-inf" : i % 25 === 0 ? "" : String(x);
    lines.push(`${cell},${x + ((i * 7) % 5) / 2 > 6 ? "high" : "low"}`);
  }
  return lines.join("\n") + "\n";
}

Deno.test("a numeric column with stray texts: read as numbers, strays missing and said by line; one column still reaches the gate", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "arrow-newcomer-cells-" });
  const runsDir = `${dir}/runs`;
  try {
    Deno.writeTextFileSync(`${dir}/one.csv`, oneColumn());
    const r = await arrow([
      "tree",
      "--data",
      `${dir}/one.csv`,
      "--target",
      "y",
      "--cycles",
      "1",
      "--executors",
      "1",
      "--runs-dir",
      runsDir,
    ]);
    equal(r.code, 0, r.stderr);
    match(
      r.stderr,
      /^note: column "x" is numeric: 3 cells are no number \("inf" at line 8, "unknown" at line 50, "-inf" at line 121\) and are read as missing$/m,
    );
    const runDir = r.stdout.match(/→ (\S+)/)![1]!;
    const state = JSON.parse(Deno.readTextFileSync(`${runDir}/state.json`));
    equal(state.dataset.columns.find((c: { name: string }) => c.name === "x").kind, "numeric");
    // The start's held-out rows (some with x missing) were scored: the gate read every one of them.
    equal(state.nodes.n0.gate, "baseline", JSON.stringify(state.nodes.n0));
    ok(typeof state.nodes.n0.heldout === "number");
    ok(typeof state.final.start === "number" && state.final.problem === null, JSON.stringify(state.final));

    // Predicting: the same strays are read as missing and said, and every row gets a prediction.
    Deno.writeTextFileSync(`${dir}/new.csv`, 'x\n1.5\nunknown\n\n9\n""\n');
    const p = await arrow(["tree", "predict", runDir, `${dir}/new.csv`, "-o", `${dir}/out.csv`]);
    equal(p.code, 0, p.stderr);
    match(
      p.stderr,
      /^note: column "x" is numeric: 1 cell is no number \("unknown" at line 3\) and is read as missing$/m,
    );
    const out = Deno.readTextFileSync(`${dir}/out.csv`).trim().split("\n");
    equal(out.length, 1 + 4, out.join("\n"));
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a file whose only feature is an identifier is refused: nothing to learn from, no run directory", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "arrow-newcomer-cells-" });
  const runsDir = `${dir}/runs`;
  try {
    const rows = Array.from({ length: 50 }, (_, i) => `${100 + i},${i % 3 === 0 ? "a" : "b"}`);
    Deno.writeTextFileSync(`${dir}/ids.csv`, ["id,label", ...rows].join("\n") + "\n");
    const r = await arrow(["tree", "--data", `${dir}/ids.csv`, "--target", "label", "--runs-dir", runsDir]);
    equal(r.code, 1, r.stdout);
    match(
      r.stderr,
      /ids\.csv: no column is left to learn "label" from: "id" is left out \(id-like: a consecutive integer counter/,
    );
    equal(r.stderr.includes("    at "), false, "no stack trace");
    deepEqual([...Deno.readDirSync(runsDir)].filter((e) => e.isDirectory && !e.name.startsWith(".")), []);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
