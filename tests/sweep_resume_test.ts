/**
 * Crash-safety of a sweep: `arrow run --scenario sweep` is killed with SIGKILL while configurations train and
 * are being cut, then `arrow resume` must end with the golden black box byte for byte and leave no process
 * of the killed run alive.
 */
import { equal } from "node:assert/strict";
import { parseReplay } from "../src/record/replay.ts";
import { arrow, pool, ROOT, spawnArrow } from "./helpers/cli.ts";
import { lineCount, processesMentioning, until } from "./helpers/procs.ts";

const GOLDEN = `${ROOT}tests/golden/sweep`;

/** Replay lines to wait for before the kill: right after the first cut, while a freed gpu is refilled, late. */
function killPoints(): number[] {
  const lines = parseReplay(Deno.readTextFileSync(`${GOLDEN}/replay.jsonl`)).lines;
  const cuts = lines.filter((l) => l.events.some((e) => e.e === "incident")).map((l) => l.tick);
  const last = lines.at(-1)!.tick;
  return [...new Set([cuts[0]! + 1, cuts[Math.floor(cuts.length / 2)]!, last - 3])].filter((n) => n <= last);
}

async function killAndResume(lines: number): Promise<void> {
  const runsDir = await Deno.makeTempDir({ prefix: "arrow-sweep-crash-" });
  const child = spawnArrow([
    "run",
    "--scenario",
    "sweep",
    "--runs-dir",
    runsDir,
    "--tick-ms",
    "15",
    "--quiet",
  ]);
  let runDir: string | undefined;
  const find = () => [...Deno.readDirSync(runsDir)].find((d) => d.isDirectory)?.name;
  await until(
    () =>
      (runDir = runDir ?? (find() && `${runsDir}/${find()}`)) !== undefined &&
      lineCount(`${runDir}/replay.jsonl`) >= lines,
    60_000,
    `the sweep to reach ${lines} replay lines`,
  );
  child.kill("SIGKILL");
  await child.status;
  const r = await arrow(["resume", runDir!, "--quiet"]);
  equal(r.code, 0, r.stderr);
  for (const f of ["incidents.jsonl", "replay.jsonl"]) {
    equal(
      Deno.readTextFileSync(`${runDir}/${f}`),
      Deno.readTextFileSync(`${GOLDEN}/${f}`),
      `killed after ${lines} lines: ${f} differs from golden`,
    );
  }
  equal(processesMentioning(runDir!).length, 0, `killed after ${lines} lines: processes left behind`);
  await Deno.remove(runsDir, { recursive: true });
}

Deno.test("sweep killed with SIGKILL mid-halving, then resumed: byte-identical black box, nothing left running", async () => {
  const points = killPoints();
  equal(points.length, 3);
  await pool(points, 2, killAndResume);
});
