/**
 * `arrow tree` as a user meets it: the --json object's exact shape, bad input named by file and line with
 * exit 1, usage errors, and a --help that explains the command.
 *
 * @module
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { arrow } from "./helpers/cli.ts";

const FIX = new URL("./fixtures/tree/", import.meta.url).pathname;

Deno.test("arrow tree --json prints exactly the issue's object, and the run directory holds the black box", async () => {
  const tmp = Deno.makeTempDirSync({ prefix: "arrow-tree-cli-" });
  try {
    const r = await arrow([
      "tree",
      "--data",
      `${FIX}small.csv`,
      "--target",
      "label",
      "--cycles",
      "1",
      "--executors",
      "1",
      "--runs-dir",
      tmp,
      "--json",
    ]);
    equal(r.code, 0, r.stderr);
    const o = JSON.parse(r.stdout);
    deepEqual(Object.keys(o).sort(), [
      "best",
      "cycles",
      "direction",
      "dropped_columns",
      "flags",
      "heldout_queries",
      "incidents",
      "metric",
      "mode",
      "model",
      "node_count",
      "nodes",
      "references",
      "run_dir",
      "splits",
      "start",
      "verdict",
      "warnings",
    ]);
    equal(o.mode, "tree");
    equal(o.metric, "accuracy");
    equal(o.direction, "maximize");
    equal(o.cycles, 1);
    equal(o.node_count, 2);
    equal(o.nodes.length, 2);
    deepEqual(o.nodes.map((n: { id: string; parent: string | null }) => [n.id, n.parent]), [["n0", null], [
      "n1",
      "n0",
    ]]);
    deepEqual(Object.keys(o.start).sort(), ["dev", "heldout", "test"]);
    deepEqual(Object.keys(o.best).sort(), ["dev", "heldout", "hypothesis", "id", "test"]);
    for (const v of [o.start.dev, o.start.heldout, o.start.test]) ok(v > 0.4 && v <= 1, String(v));
    ok(o.heldout_queries >= 1 && o.heldout_queries <= 2);
    ok(Array.isArray(o.incidents));
    for (
      const f of [
        "tree.db",
        "state.json",
        "incidents.jsonl",
        "tree/replay.jsonl",
        "report/report.md",
        "run.json",
        "splits.json",
        "model/model.json",
      ]
    ) {
      ok(Deno.statSync(`${o.run_dir}/${f}`).isFile, f);
    }
    const dev = Deno.readTextFileSync(`${o.run_dir}/data/dev.csv`).trim().split("\n").length - 1;
    equal(
      dev,
      JSON.parse(Deno.readTextFileSync(`${o.run_dir}/state.json`)).dataset.dev,
      "executors get the dev rows only",
    );
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});

Deno.test("arrow tree names the file and line of a broken CSV and exits 1", async () => {
  const tmp = Deno.makeTempDirSync({ prefix: "arrow-tree-cli-" });
  try {
    const r = await arrow(["tree", "--data", `${FIX}bad.csv`, "--target", "label", "--runs-dir", tmp]);
    equal(r.code, 1);
    match(r.stderr, /bad\.csv:3: Cannot read the CSV: /);
    equal(r.stderr.includes("    at "), false, "no stack trace");
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});

Deno.test("arrow tree refuses bad usage with exit 1 and a message, leaving no run directory", async () => {
  const tmp = Deno.makeTempDirSync({ prefix: "arrow-tree-cli-" });
  const data = ["--data", `${FIX}small.csv`, "--runs-dir", tmp];
  const cases: [string[], RegExp][] = [
    [["tree", "--target", "label"], /missing --data/],
    [["tree", ...data, "--target", "nope"], /small\.csv:1: no column "nope" to predict/],
    [["tree", ...data, "--target", "label", "--metric", "r2"], /Cannot use metric "r2"/],
    [
      ["tree", ...data, "--target", "label", "--search", "best"],
      /--search must be one of tree, random, greedy/,
    ],
    [
      ["tree", ...data, "--target", "label", "--cycles", "0"],
      /Cannot use --cycles 0: a whole number from 1 to 10000/,
    ],
    [["tree", "--resume", "no-such-run", "--runs-dir", tmp], /no tree run "no-such-run"/],
  ];
  try {
    for (const [args, want] of cases) {
      const r = await arrow(args);
      equal(r.code, 1, `${args.join(" ")}: ${r.stderr}`);
      match(r.stderr, want);
    }
    deepEqual([...Deno.readDirSync(tmp)], [], "no half-made run directory");
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});

Deno.test("arrow tree --help explains the loop, the splits and every option", async () => {
  const r = await arrow(["tree", "--help"]);
  equal(r.code, 0);
  for (
    const s of [
      "--data",
      "--target",
      "--cycles",
      "--executors",
      "--ideator",
      "--search",
      "--no-insights",
      "--heldout-budget",
      "--resume",
      "--json",
      "merge gate",
      "held-out",
      "final-test",
    ]
  ) {
    ok(r.stdout.includes(s), s);
  }
});
