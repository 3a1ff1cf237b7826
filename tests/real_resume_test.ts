/**
 * Crash-resume on the real path: arrow is killed with SIGKILL while the real GBDT trainer (a free-running,
 * detached process) is training. `arrow resume` must stop the orphaned trainer, restart it from its last
 * checkpoint so its step count continues from there, and reach the same verdict as an uninterrupted run.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { arrow, spawnArrow } from "./helpers/cli.ts";
import { lineCount, processesMentioning, until } from "./helpers/procs.ts";

const readOr = (path: string) => {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return "";
  }
};

Deno.test("real path: SIGKILL while N4 trains, then resume from N4's last checkpoint", async () => {
  const runsDir = await Deno.makeTempDir({ prefix: "arrow-real-resume-" });
  const child = spawnArrow(["run", "--scenario", "green", "--real", "--runs-dir", runsDir, "--quiet"]);
  let runDir = "";
  await until(
    () => {
      const d = [...Deno.readDirSync(runsDir)].find((e) => e.isDirectory);
      if (d) runDir = `${runsDir}/${d.name}`;
      // Trained 20 stages, and arrow has recorded one of its checkpoints: a resume can only restart from a
      // checkpoint the black box holds (on a loaded machine the file runs ahead of the ticks).
      return runDir !== "" && lineCount(`${runDir}/nodes/N4/metrics.jsonl`) >= 20 &&
        /"e":"ckpt","file":"[^"]+","node":"N4"/.test(readOr(`${runDir}/replay.jsonl`));
    },
    60_000,
    "N4 to train 20 stages with a checkpoint recorded",
  );
  child.kill("SIGKILL");
  await child.status;
  const orphans = processesMentioning(`${runDir}/nodes/N4`);
  ok(orphans.length > 0, "the detached trainer outlived the killed arrow");
  // Held where it is: on a loaded machine the orphan could otherwise finish its last stages before
  // `arrow resume` starts, leaving nothing to stop (a stopped process still dies by the sweep's SIGKILL).
  for (const pid of orphans) {
    try {
      Deno.kill(pid, "SIGSTOP");
    } catch {
      // it ended between the look and the signal
    }
  }
  ok(processesMentioning(`${runDir}/nodes/N4`).length > 0, "the detached trainer is held, not ended");

  const r = await arrow(["resume", runDir]);
  equal(r.code, 0, r.stderr);
  ok(/stopped \d+ process group\(s\) left by the dead run/.test(r.stdout), r.stdout);
  ok(/restarted: .*N4/.test(r.stdout), r.stdout);
  ok(/^RESEARCH ANSWERED$/m.test(r.stdout), r.stdout);
  deepEqual(processesMentioning(runDir), [], "nothing of the run is left alive");

  const log = Deno.readTextFileSync(`${runDir}/logs/N4.out`);
  const m = log.match(/resuming from .*\/ckpt\/step_(\d+)\.json at step (\d+)/);
  ok(m, `the restarted trainer resumed from a checkpoint:\n${log}`);
  const step = Number(m[2]);
  ok(step > 0 && step % 6 === 0, `resumed at checkpoint step ${step}`);
  const steps = Deno.readTextFileSync(`${runDir}/nodes/N4/metrics.jsonl`).trim().split("\n").map((l) =>
    JSON.parse(l).step as number
  );
  equal(steps.at(-1), 60, "and trained to the end, its step count continuing from the checkpoint");
  const state = JSON.parse(Deno.readTextFileSync(`${runDir}/state.json`));
  equal(state.nodes.N4.status, "verified");
  await Deno.remove(runsDir, { recursive: true });
});
