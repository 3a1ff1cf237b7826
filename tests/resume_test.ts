/**
 * Crash-safety: arrow is killed with SIGKILL during every scenario at several points, resumed, and must end
 * with black boxes byte-identical to an uninterrupted run (the golden files) and no process of the killed
 * run left alive. Plus the torn line, the lock (live and stale), corrupt state, and finished runs.
 */
import { equal, match, ok } from "node:assert/strict";
import { parseReplay } from "../src/record/replay.ts";
import { arrow, pool, ROOT, spawnArrow } from "./helpers/cli.ts";
import { lineCount, processesMentioning, until } from "./helpers/procs.ts";

const GOLDEN = `${ROOT}tests/golden`;
const SCENARIOS = [...Deno.readDirSync(GOLDEN)].map((d) => d.name).sort();

/** Kill points from the golden replay: early, middle, while N4 trains, right after the first incident. */
function killPoints(name: string): { label: string; lines: number }[] {
  const lines = parseReplay(Deno.readTextFileSync(`${GOLDEN}/${name}/replay.jsonl`)).lines;
  const last = lines.at(-1)!.tick;
  const training = lines.find((l) => l.events.some((e) => e.e === "ckpt" && e.node === "N4"))?.tick;
  const incident = lines.find((l) => l.events.some((e) => e.e === "incident"))?.tick;
  const points = [
    { label: "early", lines: 3 },
    { label: "middle", lines: Math.floor(last / 2) + 1 },
    ...(training !== undefined ? [{ label: "while N4 trains", lines: training + 2 }] : []),
    ...(incident !== undefined ? [{ label: "right after an incident", lines: incident + 1 }] : []),
  ].filter((p) => p.lines <= last);
  return points.filter((p, i) => points.findIndex((q) => q.lines === p.lines) === i);
}

function spawnRun(name: string, runsDir: string, tickMs: number): Deno.ChildProcess {
  return spawnArrow([
    "run",
    "--scenario",
    name,
    "--runs-dir",
    runsDir,
    "--tick-ms",
    String(tickMs),
    "--quiet",
  ]);
}

function runDirIn(runsDir: string): string | undefined {
  const d = [...Deno.readDirSync(runsDir)].find((e) => e.isDirectory);
  return d ? `${runsDir}/${d.name}` : undefined;
}

async function killAndResume(name: string, point: { label: string; lines: number }): Promise<string> {
  const runsDir = await Deno.makeTempDir({ prefix: `arrow-crash-${name}-` });
  const child = spawnRun(name, runsDir, 15);
  let runDir: string | undefined;
  await until(
    () =>
      (runDir = runDir ?? runDirIn(runsDir)) !== undefined &&
      lineCount(`${runDir}/replay.jsonl`) >= point.lines,
    120_000, // a wait, not a pace: generous for a loaded machine
    `${name} to reach ${point.lines} replay lines`,
  );
  child.kill("SIGKILL");
  await child.status;
  const r = await arrow(["resume", runDir!, "--quiet"]);
  equal(r.code, 0, `${name} (${point.label}): ${r.stderr}`);
  for (const f of ["incidents.jsonl", "replay.jsonl"]) {
    equal(
      Deno.readTextFileSync(`${runDir}/${f}`),
      Deno.readTextFileSync(`${GOLDEN}/${name}/${f}`),
      `${name} killed ${point.label} (after ${point.lines} lines): ${f} differs`,
    );
  }
  const check = await arrow(["replay", runDir!, "--check", "--json"]);
  equal(check.code, 0, `${name} (${point.label}): final state equals the uninterrupted one's rebuild`);
  const left = processesMentioning(runDir!);
  equal(
    left.length,
    0,
    `${name} (${point.label}): processes of the killed run still alive: ${left.join(", ")}`,
  );
  await Deno.remove(runsDir, { recursive: true });
  return `${name}@${point.lines}`;
}

Deno.test("SIGKILL at several points of every scenario, then resume: byte-identical black box, nothing left running", async () => {
  const cases = SCENARIOS.flatMap((name) => killPoints(name).map((p) => ({ name, p })));
  ok(cases.length >= SCENARIOS.length * 3, `${cases.length} kill points`);
  const done = await pool(cases, 2, ({ name, p }) => killAndResume(name, p));
  equal(done.length, cases.length);
});

async function interruptedRun(name: string, lines: number): Promise<{ runsDir: string; runDir: string }> {
  const runsDir = await Deno.makeTempDir({ prefix: `arrow-${name}-` });
  const child = spawnRun(name, runsDir, 15);
  let runDir: string | undefined;
  await until(
    () =>
      (runDir = runDir ?? runDirIn(runsDir)) !== undefined && lineCount(`${runDir}/replay.jsonl`) >= lines,
    120_000, // a wait, not a pace: generous for a loaded machine
    "the run to progress",
  );
  child.kill("SIGKILL");
  await child.status;
  return { runsDir, runDir: runDir! };
}

Deno.test("a torn last replay line is dropped, reported once, and the run still ends identical", async () => {
  const { runsDir, runDir } = await interruptedRun("plateau", 8);
  Deno.writeTextFileSync(`${runDir}/replay.jsonl`, '{"events":[{"e":"metric","node":"N4","st', {
    append: true,
  });
  const r = await arrow(["resume", runDir]);
  equal(r.code, 0, r.stderr);
  equal((r.stdout.match(/dropped a torn last line of replay\.jsonl \(\d+ bytes\)/g) ?? []).length, 1);
  equal(
    Deno.readTextFileSync(`${runDir}/replay.jsonl`),
    Deno.readTextFileSync(`${GOLDEN}/plateau/replay.jsonl`),
  );
  await Deno.remove(runsDir, { recursive: true });
});

Deno.test("a corrupt or missing state.json is rebuilt from replay.jsonl on resume", async () => {
  const { runsDir, runDir } = await interruptedRun("green", 6);
  Deno.writeTextFileSync(`${runDir}/state.json`, '{"v":1,"tick":');
  const report = await arrow(["report", runDir]);
  equal(report.code, 1);
  match(report.stderr, /state\.json is corrupt/);
  match(report.stderr, /arrow resume/);
  const r = await arrow(["resume", runDir]);
  equal(r.code, 0, r.stderr);
  match(r.stdout, /state\.json was corrupt; rebuilt from replay\.jsonl/);
  equal(
    Deno.readTextFileSync(`${runDir}/incidents.jsonl`),
    Deno.readTextFileSync(`${GOLDEN}/green/incidents.jsonl`),
  );
  Deno.removeSync(`${runDir}/state.json`);
  const again = await arrow(["resume", runDir]);
  equal(again.code, 0);
  match(
    again.stdout,
    /already finished at tick \d+ with RESEARCH ANSWERED; nothing to resume \(its black box was repaired\)/,
  );
  equal((await arrow(["replay", runDir, "--check"])).code, 0);
  await Deno.remove(runsDir, { recursive: true });
});

function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (p: string) => {
    for (const d of Deno.readDirSync(p)) {
      const q = `${p}/${d.name}`;
      if (d.isDirectory) walk(q);
      else if (q.endsWith("/.arrow/lock")) {
        // Taking and releasing the lock rewrites its holder record (pid, then empty): not the run's content.
        out.set(q, Deno.readTextFileSync(q));
      } else {
        const st = Deno.statSync(q);
        out.set(q, `${st.size}:${st.mtime?.getTime()}:${Deno.readTextFileSync(q).length}`);
      }
    }
  };
  walk(dir);
  return out;
}

Deno.test("resuming a finished run says so and changes nothing", async () => {
  const runsDir = await Deno.makeTempDir();
  const run = await arrow(["run", "--scenario", "trap_b", "--runs-dir", runsDir, "--json"]);
  const runDir = JSON.parse(run.stdout).run_dir as string;
  const before = snapshot(runDir);
  const r = await arrow(["resume", runDir]);
  equal(r.code, 0);
  match(r.stdout, /already finished at tick \d+ with RESULT WITHHELD; nothing to resume$/m);
  const after = snapshot(runDir);
  equal(after.size, before.size);
  for (const [k, v] of before) equal(after.get(k), v, `${k} changed`);
  await Deno.remove(runsDir, { recursive: true });
});

Deno.test("one writer: a live run's directory is refused, a stale lock is taken over", async () => {
  const runsDir = await Deno.makeTempDir();
  const child = spawnRun("green", runsDir, 400);
  let runDir: string | undefined;
  await until(
    () => (runDir = runDir ?? runDirIn(runsDir)) !== undefined && lineCount(`${runDir}/replay.jsonl`) >= 2,
    120_000, // a wait, not a pace: generous for a loaded machine
    "the run to start",
  );
  const refused = await arrow(["resume", runDir!]);
  equal(refused.code, 1);
  match(refused.stderr, new RegExp(`another arrow process \\(pid ${child.pid}\\) is running it`));
  child.kill("SIGKILL");
  await child.status;
  const taken = await arrow(["resume", runDir!, "--tick-ms", "0"]);
  equal(taken.code, 0, taken.stderr);
  match(taken.stderr, new RegExp(`took over a stale lock left by pid ${child.pid}`));
  equal(
    Deno.readTextFileSync(`${runDir}/replay.jsonl`),
    Deno.readTextFileSync(`${GOLDEN}/green/replay.jsonl`),
  );
  await Deno.remove(runsDir, { recursive: true });
});

Deno.test("arrow replay is a pure function of replay.jsonl: alone in a directory it rebuilds state.json", async (t) => {
  const runsDir = await Deno.makeTempDir();
  const results = await pool(
    SCENARIOS,
    2,
    (name) => arrow(["run", "--scenario", name, "--runs-dir", runsDir, "--json"]),
  );
  for (const [i, name] of SCENARIOS.entries()) {
    await t.step(name, async () => {
      const runDir = JSON.parse(results[i]!.stdout).run_dir as string;
      const lonely = `${runsDir}/${name}-replay-only`;
      Deno.mkdirSync(lonely);
      Deno.copyFileSync(`${runDir}/replay.jsonl`, `${lonely}/replay.jsonl`);
      const r = await arrow(["replay", lonely, "--json"]);
      equal(r.code, 0, r.stderr);
      equal(r.stdout, Deno.readTextFileSync(`${runDir}/state.json`));
    });
  }
  await Deno.remove(runsDir, { recursive: true });
});

Deno.test("Ctrl-C stops a run cleanly (exit 130, says how to continue) and resume finishes it identically", async () => {
  const runsDir = await Deno.makeTempDir();
  const child = spawnArrow(
    ["run", "--scenario", "trap_taint", "--runs-dir", runsDir, "--tick-ms", "30", "--quiet"],
    "piped",
  );
  let runDir: string | undefined;
  await until(
    () => (runDir = runDir ?? runDirIn(runsDir)) !== undefined && lineCount(`${runDir}/replay.jsonl`) >= 12,
    120_000, // a wait, not a pace: generous for a loaded machine
    "the run to progress",
  );
  child.kill("SIGINT");
  const out = await child.output();
  equal(out.code, 130);
  match(
    new TextDecoder().decode(out.stderr),
    new RegExp(`interrupted at tick \\d+; continue with: arrow resume ${runDir}`),
  );
  equal(processesMentioning(runDir!).length, 0, "workers were stopped on the way out");
  const r = await arrow(["resume", runDir!, "--tick-ms", "0", "--quiet"]);
  equal(r.code, 0, r.stderr);
  equal(
    Deno.readTextFileSync(`${runDir}/replay.jsonl`),
    Deno.readTextFileSync(`${GOLDEN}/trap_taint/replay.jsonl`),
  );
  await Deno.remove(runsDir, { recursive: true });
});
