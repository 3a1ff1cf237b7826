/**
 * Every seed scenario on the real path (real data, OLS, a GBDT trainer subprocess, checkpoint evaluation,
 * claims recomputed from the artifacts) ends with the same verdict and the same incidents — type, node, rung,
 * in order — as on the mock path. Ticks are wall-clock here, so only the tick numbers may differ.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { generateCsv } from "../scripts/real/data.ts";
import { sha256 } from "../scripts/lib/files.ts";
import { resolveBuiltin } from "../src/cli/catalog.ts";
import { pool } from "./helpers/cli.ts";
import { mockTriples, type RealRun, realScenario, runReal } from "./helpers/real.ts";

const SEED = ["green", "plateau", "trap_b", "trap_scope", "trap_stale", "trap_taint", "hung"];
const NAMES = [...SEED, "false_completion"];
const json = (path: string) => JSON.parse(Deno.readTextFileSync(path));

Deno.test("seed scenarios on the real path", async (t) => {
  // Three at a time: the runs mostly sleep between ticks, but process start-ups on two cores add up.
  const done = await pool(NAMES, 3, (name) => {
    const { plan, faults } = realScenario(name);
    return runReal(name, plan, faults);
  });
  const runs = new Map<string, RealRun>(NAMES.map((n, i) => [n, done[i]!]));
  const run = (name: string) => runs.get(name)!;
  try {
    for (const name of SEED) {
      await t.step(`${name} --real: same verdict and incidents as the mock path`, () => {
        const r = run(name);
        equal(r.state.verdict, resolveBuiltin(name).expect?.verdict);
        deepEqual(r.triples, mockTriples(name));
      });
    }
    await t.step(
      "false_completion --real: a training-set claim is refused, its unchanged retry fused",
      async () => {
        const r = run("false_completion");
        equal(r.state.verdict, "RESULT WITHHELD");
        deepEqual(r.triples, [["FALSE_COMPLETION", "N4", "bounce"], ["FALSE_COMPLETION", "N4", "fuse"]]);
        const [first, second] = r.incidents;
        const ev = first!.evidence as { claimed_score: number; exit_code: number; stdout: string };
        equal(ev.exit_code, 1);
        ok(ev.claimed_score > 0.95, "the claim is the training-set R²");
        ok(/claim does not reproduce: claimed .* recomputed 0\.79/.test(ev.stdout), ev.stdout);
        equal((second!.evidence as { reason: string }).reason, "retry did not improve by ACCEPT_EPS");
      },
    );

    await t.step(
      "real runs use the byte-reproducible seeded data set and the real content hashes",
      async () => {
        const want = await sha256(generateCsv(7));
        equal(want, "a4331a01f066fc3d4c6c01ef5cfc30967426aa37cde42dbfebac09aacda4ca45");
        for (const [name, r] of runs) {
          const m = json(`${r.dir}/nodes/N1/results.json`);
          equal(m.data_hash, want, name);
          equal(m.data_hash, await sha256(Deno.readFileSync(`${r.dir}/nodes/N1/data.csv`)), name);
          equal(m.split_hash, await sha256(Deno.readFileSync(`${r.dir}/nodes/N1/split.json`)), name);
        }
      },
    );

    await t.step(
      "green --real: N4 beats the OLS baseline; N4e's best checkpoint reproduces N4's claim",
      async () => {
        const r = run("green");
        const base = json(`${r.dir}/nodes/N3/results.json`);
        const n4 = json(`${r.dir}/nodes/N4/results.json`);
        const n4e = json(`${r.dir}/nodes/N4e/results.json`);
        ok(n4.score > base.score + 0.1, `${n4.score} vs ${base.score}`);
        equal(n4e.score, n4.score);
        equal(Deno.readTextFileSync(`${r.dir}/nodes/N4/metrics.jsonl`).trim().split("\n").length, 61);
        equal([...Deno.readDirSync(`${r.dir}/nodes/N4/ckpt`)].length, 10);
      },
    );

    await t.step(
      "plateau --real: killed at a checkpoint boundary below the baseline; N7 trains for real",
      async () => {
        const r = run("plateau");
        const ev = r.incidents[0]!.evidence as {
          ckpt: string;
          step: number;
          best_dev: number;
          target: number;
        };
        equal(ev.ckpt, `ckpt/step_${String(ev.step).padStart(6, "0")}.json`);
        equal(ev.step % 6, 0);
        ok(ev.step < 60 && ev.best_dev < ev.target, JSON.stringify(ev));
        ok(json(`${r.dir}/nodes/N7/results.json`).score > 0);
      },
    );

    await t.step("trap_b --real: the dropped rows give a real, different data_hash", async () => {
      const r = run("trap_b");
      const ev = r.incidents[0]!.evidence as { field: string; got: string };
      equal(ev.field, "data_hash");
      equal(ev.got, await sha256(Deno.readFileSync(`${r.dir}/nodes/N4/data_clean.csv`)));
    });

    await t.step(
      "trap_scope --real: Deno's permissions stopped the write and the audit log named it",
      async () => {
        const r = run("trap_scope");
        const ev = r.incidents[0]!.evidence as { attempts: { path: string; stopped_by: string }[] };
        deepEqual(ev.attempts.map((a) => [a.path, a.stopped_by]), [[
          "nodes/N3/leaked_by_N4.txt",
          "deno-audit",
        ]]);
        equal([...Deno.readDirSync(`${r.dir}/nodes/N3`)].some((d) => d.name.startsWith("leaked")), false);
      },
    );

    await t.step(
      "hung --real: restarted from the step-12 checkpoint, the step count continues from it",
      async () => {
        const r = run("hung");
        const ev = r.incidents[0]!.evidence as { resume_from: string; step: number };
        deepEqual([ev.resume_from, ev.step], ["ckpt/step_000012.json", 14]);
        const steps = Deno.readTextFileSync(`${r.dir}/nodes/N4/metrics.jsonl`).trim().split("\n")
          .map((l) => JSON.parse(l).step);
        deepEqual(steps, [...Array.from({ length: 15 }, (_, i) => i), 13, 14]);
      },
    );
  } finally {
    for (const r of runs.values()) await Deno.remove(r.dir, { recursive: true });
  }
});
