/**
 * kill -9 and resume: `arrow tree` is killed at several points — while the starting artifact is measured,
 * while a cycle's executors run, between cycles, during the final test — and `arrow tree --resume` finishes
 * each run. With the library ideator every resumed run ends exactly as the uninterrupted one: the same
 * state, incidents and step log, byte for byte, and the same events in the SQLite store.
 *
 * @module
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { arrow, ROOT } from "./helpers/cli.ts";
import { TreeStore } from "../src/tree/store.ts";

const CSV = new URL("./fixtures/tree/small.csv", import.meta.url).pathname;
const ARGS = [
  "--data",
  CSV,
  "--target",
  "label",
  "--cycles",
  "2",
  "--executors",
  "2",
  "--seed",
  "4",
  "--observe-every",
  "5",
];
const FILES = ["state.json", "incidents.jsonl", "tree/replay.jsonl"];

function only(dir: string): string | null {
  try {
    const d = [...Deno.readDirSync(dir)].filter((e) => e.isDirectory);
    return d.length === 1 ? `${dir}/${d[0]!.name}` : null;
  } catch {
    return null;
  }
}

function lines(path: string): number {
  try {
    return Deno.readTextFileSync(path).split("\n").filter(Boolean).length;
  } catch {
    return 0;
  }
}

const has = (p: string) => {
  try {
    Deno.statSync(p);
    return true;
  } catch {
    return false;
  }
};

/** Waits (polling the run directory, no fixed sleep) until `when` holds, then kills arrow with SIGKILL. */
async function killWhen(runsDir: string, when: (runDir: string) => boolean): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-prompt", `${ROOT}src/cli/main.ts`, "tree", ...ARGS, "--runs-dir", runsDir],
    env: { NO_COLOR: "1", RUST_BACKTRACE: "0" },
    stdout: "null",
    stderr: "null",
  }).spawn();
  let runDir: string | null = null;
  // A safety net only (the kill points are states of the run, not times): several runs share the machine.
  const deadline = performance.now() + 300_000;
  try {
    for (;;) {
      runDir ??= only(runsDir);
      if (runDir && when(runDir)) break;
      if (performance.now() > deadline) throw new Error("the kill point never came");
      await new Promise((r) => setTimeout(r, 15));
    }
  } finally {
    child.kill("SIGKILL");
    await child.status;
  }
  return runDir!;
}

const POINTS: [string, (runDir: string) => boolean][] = [
  ["while the starting artifact is measured", (d) => has(`${d}/nodes/n0/artifact.json`)],
  ["while the first cycle's executors run", (d) => has(`${d}/nodes/n1/metrics.jsonl`)],
  ["between cycles", (d) => lines(`${d}/tree/replay.jsonl`) >= 6],
  ["during the final test", (d) => [...safeList(`${d}/gate`)].some((n) => n.includes(".test."))],
];

function safeList(dir: string): string[] {
  try {
    return [...Deno.readDirSync(dir)].map((e) => e.name);
  } catch {
    return [];
  }
}

Deno.test("arrow tree killed with SIGKILL at any point resumes to the same end, byte for byte", async () => {
  const tmp = Deno.makeTempDirSync({ prefix: "arrow-tree-resume-" });
  try {
    // The reference run and every kill-and-resume run side by side: they share nothing but the CSV.
    const whole = arrow(["tree", ...ARGS, "--runs-dir", `${tmp}/whole`, "--json"]);
    const killed = POINTS.map(async ([what, when], i) => {
      const runDir = await killWhen(`${tmp}/killed${i}`, when);
      const before = lines(`${runDir}/tree/replay.jsonl`);
      const resumed = await arrow(["tree", "--resume", runDir, "--json"]);
      return { what, runDir, before, resumed };
    });
    const [w, ...runs] = await Promise.all([whole, ...killed]);
    equal(w.code, 0, w.stderr);
    const ref = JSON.parse(w.stdout).run_dir as string;
    const refEvents = eventsOf(ref);
    ok(refEvents.length > 8, "the reference run took several steps");
    for (const { what, runDir, before, resumed } of runs) {
      equal(resumed.code, 0, `${what}: ${resumed.stderr}`);
      ok(
        before < refEvents.length,
        `${what}: killed before the end (${before} of ${refEvents.length} steps)`,
      );
      for (const f of FILES) {
        equal(Deno.readTextFileSync(`${runDir}/${f}`), Deno.readTextFileSync(`${ref}/${f}`), `${what}: ${f}`);
      }
      deepEqual(eventsOf(runDir), refEvents, `${what}: the store's events`);
    }
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});

function eventsOf(runDir: string): string[] {
  const store = TreeStore.open(`${runDir}/tree.db`);
  try {
    return store.events().map((e) => JSON.stringify(e));
  } finally {
    store.close();
  }
}
