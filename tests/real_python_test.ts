/**
 * The Python example trainer (scripts/python/train_gbdt.py, a command worker under bubblewrap when it is
 * installed) supervised end to end through the file protocol alone: it is verified when it finishes, hung
 * detection restarts it from its checkpoint and then kills it, plateau detection kills it at a checkpoint
 * boundary — with the same incidents and evidence as the built-in TypeScript trainer on the same plan.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { findBwrap } from "../src/cli/sandbox.ts";
import { pool } from "./helpers/cli.ts";
import { PYTHON, pythonPlan, type RealRun, realScenario, runReal } from "./helpers/real.ts";

const json = (path: string) => JSON.parse(Deno.readTextFileSync(path));
const steps = (r: RealRun) =>
  Deno.readTextFileSync(`${r.dir}/nodes/N4/metrics.jsonl`).trim().split("\n").map((l) => JSON.parse(l).step);
const pick = (r: RealRun, i: number, keys: string[]) =>
  Object.fromEntries(
    keys.map((k) => [k, (r.incidents[i]!.evidence as unknown as Record<string, unknown>)[k]]),
  );

/** Processes still alive that a run started: their environment names the run directory. */
function survivors(dir: string): string[] {
  const out: string[] = [];
  const needle = `ARROW_RUN_DIR=${dir}\0`;
  for (const d of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(d.name)) continue;
    try {
      if (!Deno.readTextFileSync(`/proc/${d.name}/environ`).includes(needle)) continue;
      out.push(
        `${d.name}: ${Deno.readTextFileSync(`/proc/${d.name}/cmdline`).replaceAll("\0", " ").slice(0, 200)}`,
      );
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

Deno.test("the Python trainer is supervised like the built-in one", async (t) => {
  const bwrap = await findBwrap();
  const decay = String(1 - 1 / 6);
  const jobs: [string, () => Promise<RealRun>][] = [
    ["py_green", () => runReal("py_green", pythonPlan(), [], { bwrap })],
    ["py_hung", () => runReal("py_hung", pythonPlan(["--hang-after", "11"]), [], { bwrap })],
    ["py_plateau", () => runReal("py_plateau", pythonPlan(["--lr-decay", decay]), [], { bwrap })],
    ["ts_hung", () => runReal("ts_hung", realScenario("hung").plan, realScenario("hung").faults)],
    ["ts_plateau", () => runReal("ts_plateau", realScenario("plateau").plan, realScenario("plateau").faults)],
  ];
  const done = await pool(jobs, 3, ([, job]) => job());
  const runs = new Map(jobs.map(([name], i) => [name, done[i]!]));
  const run = (name: string) => runs.get(name)!;
  try {
    await t.step(`runs under ${bwrap ? "bubblewrap" : "no sandbox (bwrap missing)"} with ${PYTHON}`, () => {
      equal(run("py_green").state.verdict, "RESEARCH ANSWERED");
      deepEqual(run("py_green").triples, []);
    });

    await t.step(
      "its claim is recomputed by @claim and equals the built-in trainer's score bit for bit",
      () => {
        const m = json(`${run("py_green").dir}/nodes/N4/results.json`);
        equal(m.score, 0.7950430929570895);
        equal(m.artifact, "model.json");
        equal(m.data_hash, json(`${run("py_green").dir}/nodes/N2/results.json`).data_hash);
      },
    );

    await t.step(
      "hang: restarted once from the step-6 checkpoint, the step count continues, then killed",
      () => {
        const [py, ts] = [run("py_hung"), run("ts_hung")];
        deepEqual(
          py.triples,
          [["HUNG_RESTART", "N4", "bounce"], ["HUNG_RESTART", "N4", "fuse"]],
          // What each incident saw, so a recurrence under load names its cause.
          JSON.stringify(py.incidents.map((i) => ({ type: i.type, evidence: i.evidence }))).slice(0, 4000),
        );
        deepEqual(py.triples, ts.triples);
        const keys = ["step", "best_dev", "best_ckpt", "resume_from", "stalled_ticks"];
        deepEqual(pick(py, 0, keys), pick(ts, 0, keys));
        equal(pick(py, 0, ["resume_from"]).resume_from, "ckpt/step_000006.json");
        deepEqual(steps(py), [...Array.from({ length: 12 }, (_, i) => i), 7, 8, 9, 10, 11]);
        deepEqual(steps(py), steps(ts));
        ok(Deno.readTextFileSync(`${py.dir}/logs/N4.out`).includes("resuming from"));
        equal(py.state.nodes.N4!.status, "killed");
        equal(py.state.verdict, ts.state.verdict);
      },
    );

    await t.step("plateau: killed at a checkpoint boundary below the baseline, N7 grown", () => {
      const [py, ts] = [run("py_plateau"), run("ts_plateau")];
      deepEqual(py.triples, [["PLATEAU_TRIP", "N4", "fuse"], ["PLATEAU_TRIP", "N7", "graph_surgery"]]);
      deepEqual(py.triples, ts.triples);
      for (const r of [py, ts]) {
        const ev = pick(r, 0, ["ckpt", "step", "best_dev", "target"]);
        equal(ev.ckpt, `ckpt/step_${String(ev.step).padStart(6, "0")}.json`);
        ok((ev.best_dev as number) < (ev.target as number));
        equal(r.state.nodes.N4!.status, "plateaued");
      }
      equal(py.state.verdict, "NEGATIVE RESULT");
      equal(py.state.verdict, ts.state.verdict);
    });

    await t.step("no trainer process outlives its run", () => {
      for (const r of runs.values()) deepEqual(survivors(r.dir), []);
    });
  } finally {
    for (const r of runs.values()) await Deno.remove(r.dir, { recursive: true });
  }
});
