/**
 * One record for both modes: tree mode's tree/replay.jsonl is hash-chained by the graph path's own chain
 * (record/chain.ts), its head in .arrow/chain, so `arrow replay --check` names a forged, dropped or edited
 * step line of a tree run as it does for a task-graph run.
 *
 * @module
 */
import { equal, match } from "node:assert/strict";
import { arrow, ROOT } from "./helpers/cli.ts";
import { parseReplay } from "../src/record/replay.ts";
import { readHead } from "../src/record/chain.ts";

const SMALL = `${ROOT}tests/fixtures/tree/small.csv`;

Deno.test("a tree run's step log carries the graph path's hash chain, and replay --check names a forged line", async () => {
  const runsDir = Deno.makeTempDirSync({ prefix: "arrow-tree-chain-" });
  try {
    const made = await arrow([
      ...["tree", "--data", SMALL, "--target", "label", "--cycles", "1", "--executors", "1"],
      ...["--runs-dir", runsDir, "--json"],
    ]);
    equal(made.code, 0, made.stderr);
    const runDir = JSON.parse(made.stdout).run_dir as string;
    const path = `${runDir}/tree/replay.jsonl`;
    const text = Deno.readTextFileSync(path);
    const parsed = parseReplay(text);
    equal(parsed.broken, undefined, "every line follows from the one before it");
    equal(readHead(runDir)?.lines, parsed.lines.length);
    equal(readHead(runDir)?.head, parsed.head, "the head arrow keeps is the last line's hash");

    const ok = await arrow(["replay", "--check", runDir]);
    equal(ok.code, 0, ok.stderr);
    match(ok.stdout, /the hash chain holds/);

    // A step appended by someone else (it changes no state, so only the chain can tell).
    Deno.writeTextFileSync(path, text + '{"events":[],"tick":99}\n');
    const forged = await arrow(["replay", "--check", runDir]);
    equal(forged.code, 1);
    match(
      forged.stderr,
      new RegExp(`line ${parsed.lines.length + 1} it carries no hash of the line before it`),
    );

    // The last line dropped.
    Deno.writeTextFileSync(path, text.split("\n").slice(0, -2).join("\n") + "\n");
    const dropped = await arrow(["replay", "--check", runDir]);
    equal(dropped.code, 1);
    match(dropped.stderr, /differs from state\.json|were dropped/);

    // Resume rebuilds the projections from the store, the chain with them.
    Deno.writeTextFileSync(path, text + '{"events":[],"tick":99}\n');
    const resumed = await arrow(["resume", runDir]);
    equal(resumed.code, 0, resumed.stderr);
    equal(Deno.readTextFileSync(path), text, "the rebuilt log is the one arrow wrote, byte for byte");
    equal((await arrow(["replay", "--check", runDir])).code, 0);
  } finally {
    Deno.removeSync(runsDir, { recursive: true });
  }
});
