import { deepEqual, equal } from "node:assert/strict";
import { listRuns, phaseOf, runDirOf } from "./runs.ts";

Deno.test("runDirOf() accepts only plain names of run directories under the runs directory", async () => {
  const root = await Deno.makeTempDir();
  try {
    const runs = `${root}/runs`;
    Deno.mkdirSync(`${runs}/r1`, { recursive: true });
    Deno.writeTextFileSync(`${runs}/r1/replay.jsonl`, "");
    Deno.mkdirSync(`${runs}/empty`);
    Deno.mkdirSync(`${root}/outside`);
    Deno.writeTextFileSync(`${root}/outside/replay.jsonl`, "");
    Deno.symlinkSync(`${root}/outside`, `${runs}/link`);
    equal(runDirOf(runs, "r1"), `${runs}/r1`);
    for (const bad of ["..", ".", "../outside", "..%2Foutside", "link", "empty", "nope", "r1/", "", "a b"]) {
      equal(runDirOf(runs, bad), null, bad);
    }
    deepEqual((await listRuns(runs)).map((r) => r.id), ["r1"]);
    // A run whose state.json is a link (to any file) is still listed, but nothing is read through the link.
    Deno.writeTextFileSync(`${root}/outside/state.json`, JSON.stringify({ scenario: "leaked", tick: 99 }));
    Deno.symlinkSync(`${root}/outside/state.json`, `${runs}/r1/state.json`);
    const r1 = (await listRuns(runs))[0]!;
    equal(r1.scenario, "?");
    equal(r1.tick, 0);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("phaseOf() tells live from stopped by the lock and its owner", async () => {
  const dir = await Deno.makeTempDir();
  try {
    equal(await phaseOf(dir, "RESEARCH ANSWERED"), "finished");
    equal(await phaseOf(dir, null), "stopped");
    Deno.mkdirSync(`${dir}/.arrow`);
    Deno.writeTextFileSync(`${dir}/.arrow/lock`, "");
    equal(await phaseOf(dir, null), "stopped", "a released lock holds no record");
    Deno.writeTextFileSync(`${dir}/.arrow/lock`, JSON.stringify({ pid: 123, start: "9" }));
    equal(await phaseOf(dir, null), "live");
    equal(await phaseOf(dir, null, () => false), "stopped");
    equal(await phaseOf(dir, null, (pid, start) => pid === 123 && start === "9"), "live");
    // A lock file replaced by a link to an endless device is not read.
    Deno.removeSync(`${dir}/.arrow/lock`);
    Deno.symlinkSync("/dev/zero", `${dir}/.arrow/lock`);
    equal(await phaseOf(dir, null), "stopped");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("summarize() gives kind, metric, score and LLM use (each call once, cost only when reported)", async () => {
  const runs = await Deno.makeTempDir();
  try {
    Deno.mkdirSync(`${runs}/t/.arrow/usage`, { recursive: true });
    Deno.writeTextFileSync(`${runs}/t/tree.db`, "");
    Deno.writeTextFileSync(
      `${runs}/t/state.json`,
      JSON.stringify({
        mode: "tree",
        config: { metric: "auc" },
        final: null,
        incumbent: "n1",
        nodes: { n1: { heldout: 0.7 } },
      }),
    );
    const line = (call: string, tokens: number, cost?: number) =>
      JSON.stringify({ call, tokens, cost }) + "\n";
    Deno.writeTextFileSync(
      `${runs}/t/.arrow/usage/N4.jsonl`,
      line("a", 10, 0.5) + line("a", 10, 0.5) + line("b", 5),
    );
    Deno.writeTextFileSync(`${runs}/t/.arrow/usage/N5.jsonl`, line("c", 7) + "{torn");
    const [t] = await listRuns(runs);
    equal(t!.kind, "tree");
    equal(t!.metric, "auc");
    equal(t!.score, 0.7);
    equal(t!.score_of, "held-out");
    deepEqual(t!.usage, { N4: { calls: 2, tokens: 15, cost: 0.5 }, N5: { calls: 1, tokens: 7, cost: null } });
  } finally {
    await Deno.remove(runs, { recursive: true });
  }
});
