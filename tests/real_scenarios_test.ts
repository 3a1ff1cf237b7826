/**
 * Every seed scenario on the real path (real data, OLS, a GBDT trainer subprocess, checkpoint evaluation,
 * claims recomputed from the artifacts) ends with the same verdict and the same incidents — type, node, rung,
 * in order — as on the mock path. Ticks are wall-clock here, so only the tick numbers may differ.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { generateCsv } from "../src/workers/real/data.ts";
import { sha256 } from "../src/workers/lib/files.ts";
import { resolveBuiltin } from "../src/cli/catalog.ts";
import { pool } from "./helpers/cli.ts";
import { mockTriples, type RealRun, realScenario, runReal } from "./helpers/real.ts";

const SEED = ["green", "plateau", "trap_b", "trap_scope", "trap_stale", "trap_taint", "hung"];
const json = (path: string) => JSON.parse(Deno.readTextFileSync(path));
const evidence = <T>(r: RealRun, i = 0) => r.incidents[i]!.evidence as T;
type Runs = (name: string) => RealRun;

/** What each real run shows beyond the incident list. */
const CHECKS: Record<string, (run: Runs) => void | Promise<void>> = {
  "false_completion --real: a training-set claim is refused, its unchanged retry fused": (run) => {
    const r = run("false_completion");
    equal(r.state.verdict, "RESULT WITHHELD");
    deepEqual(r.triples, [["FALSE_COMPLETION", "N4", "bounce"], ["FALSE_COMPLETION", "N4", "fuse"]]);
    const ev = evidence<{ claimed_score: number; exit_code: number; stdout: string }>(r);
    equal(ev.exit_code, 1);
    ok(ev.claimed_score > 0.95, "the claim is the training-set R²");
    ok(/claim does not reproduce: claimed .* recomputed 0\.79/.test(ev.stdout), ev.stdout);
    equal(evidence<{ reason: string }>(r, 1).reason, "retry did not improve by ACCEPT_EPS");
  },
  "green --real: N4 beats the OLS baseline; N4e's best checkpoint reproduces N4's claim": (run) => {
    const r = run("green");
    const [base, n4, n4e] = ["N3", "N4", "N4e"].map((n) => json(`${r.dir}/nodes/${n}/results.json`));
    ok(n4.score > base.score + 0.1, `${n4.score} vs ${base.score}`);
    equal(n4e.score, n4.score);
    equal(Deno.readTextFileSync(`${r.dir}/nodes/N4/metrics.jsonl`).trim().split("\n").length, 61);
    equal([...Deno.readDirSync(`${r.dir}/nodes/N4/ckpt`)].length, 10);
  },
  "plateau --real: killed at a checkpoint boundary below the baseline; N7 trains for real": (run) => {
    const r = run("plateau");
    const ev = evidence<{ ckpt: string; step: number; best_dev: number; target: number }>(r);
    equal(ev.ckpt, `ckpt/step_${String(ev.step).padStart(6, "0")}.json`);
    ok(ev.step < 60 && ev.best_dev < ev.target, JSON.stringify(ev));
    ok(json(`${r.dir}/nodes/N7/results.json`).score > 0);
  },
  "trap_b --real: the dropped rows give a real, different data_hash": async (run) => {
    const r = run("trap_b");
    const ev = evidence<{ field: string; got: string }>(r);
    equal(ev.field, "data_hash");
    equal(ev.got, await sha256(Deno.readFileSync(`${r.dir}/nodes/N4/data_clean.csv`)));
  },
  "trap_scope --real: Deno's permissions stopped the write and the audit log named it": (run) => {
    const r = run("trap_scope");
    const ev = evidence<{ attempts: { path: string; stopped_by: string }[] }>(r);
    deepEqual(ev.attempts.map((a) => [a.path, a.stopped_by]), [["nodes/N3/leaked_by_N4.txt", "deno-audit"]]);
    equal([...Deno.readDirSync(`${r.dir}/nodes/N3`)].some((d) => d.name.startsWith("leaked")), false);
  },
  "hung --real: restarted from the step-6 checkpoint, the step count continues from it": (run) => {
    const r = run("hung");
    const ev = evidence<{ resume_from: string; step: number }>(r);
    deepEqual([ev.resume_from, ev.step], ["ckpt/step_000006.json", 11]);
    const steps = Deno.readTextFileSync(`${r.dir}/nodes/N4/metrics.jsonl`).trim().split("\n")
      .map((l) => JSON.parse(l).step);
    deepEqual(steps, [...Array.from({ length: 12 }, (_, i) => i), 7, 8, 9, 10, 11]);
  },
  "every run used the byte-reproducible seeded data set and real content hashes": async (run) => {
    const want = await sha256(generateCsv(7));
    equal(want, "a4331a01f066fc3d4c6c01ef5cfc30967426aa37cde42dbfebac09aacda4ca45");
    for (const name of [...SEED, "false_completion"]) {
      const dir = `${run(name).dir}/nodes/N1`;
      const m = json(`${dir}/results.json`);
      equal(m.data_hash, want, name);
      equal(m.data_hash, await sha256(Deno.readFileSync(`${dir}/data.csv`)), name);
      equal(m.split_hash, await sha256(Deno.readFileSync(`${dir}/split.json`)), name);
    }
  },
};

Deno.test("seed scenarios on the real path", async (t) => {
  const names = [...SEED, "false_completion"];
  // Three at a time: the runs mostly sleep between ticks, but process start-ups on two cores add up.
  const done = await pool(names, 3, (name) => {
    const { plan, faults } = realScenario(name);
    return runReal(name, plan, faults);
  });
  const runs = new Map<string, RealRun>(names.map((n, i) => [n, done[i]!]));
  const run: Runs = (name) => runs.get(name)!;
  try {
    for (const name of SEED) {
      await t.step(`${name} --real: same verdict and incidents as the mock path`, () => {
        equal(run(name).state.verdict, resolveBuiltin(name).expect?.verdict);
        deepEqual(run(name).triples, mockTriples(name));
      });
    }
    for (const [what, check] of Object.entries(CHECKS)) await t.step(what, () => check(run));
  } finally {
    for (const r of runs.values()) await Deno.remove(r.dir, { recursive: true });
  }
});
