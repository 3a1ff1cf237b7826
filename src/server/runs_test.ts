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
    deepEqual(listRuns(runs).map((r) => r.id), ["r1"]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("phaseOf() tells live from stopped by the lock and its owner", async () => {
  const dir = await Deno.makeTempDir();
  try {
    equal(phaseOf(dir, "RESEARCH ANSWERED"), "finished");
    equal(phaseOf(dir, null), "stopped");
    Deno.mkdirSync(`${dir}/.arrow`);
    Deno.writeTextFileSync(`${dir}/.arrow/lock`, JSON.stringify({ pid: 123, start: "9" }));
    equal(phaseOf(dir, null), "live");
    equal(phaseOf(dir, null, () => false), "stopped");
    equal(phaseOf(dir, null, (pid, start) => pid === 123 && start === "9"), "live");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
