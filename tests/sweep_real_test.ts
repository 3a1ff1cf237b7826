/**
 * The `sweep` scenario on the real path: each configuration's arguments reach the real GBDT trainer (its
 * learning rate in every metrics line, its depth in every tree), halving kills carry consistent evidence, the
 * verdict rests on the best verified configuration, and all of it under one frozen tuple — on the generated
 * data set and on a user's CSV (`--data`).
 */
import { equal, ok } from "node:assert/strict";
import type { SupersededEvidence } from "../src/model/evidence.ts";
import type { Incident, RunState } from "../src/model/state.ts";
import { arrow, pool } from "./helpers/cli.ts";

interface Out {
  verdict: string;
  run_dir: string;
  method: string | null;
}

/** Deepest root-to-leaf path of a tree in the trainer's flat format. */
function depthOf(t: { f: number[]; l: number[]; r: number[] }, i = 0): number {
  return t.f[i]! < 0 ? 0 : 1 + Math.max(depthOf(t, t.l[i]!), depthOf(t, t.r[i]!));
}

async function sha256(bytes: Uint8Array): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function check(out: Out): RunState {
  const state = JSON.parse(Deno.readTextFileSync(`${out.run_dir}/state.json`)) as RunState;
  const g = state.plan.sweeps![0]!;
  for (const c of g.configs) {
    const dir = `${out.run_dir}/nodes/${c.id}`;
    const lines = Deno.readTextFileSync(`${dir}/metrics.jsonl`).trim().split("\n").map((l) => JSON.parse(l));
    for (const m of lines.filter((m) => m.step > 0)) {
      equal(m.lr, c.args.learning_rate, `${c.id} trains at its rate`);
    }
    const ckpts = [...Deno.readDirSync(`${dir}/ckpt`)].map((d) => d.name).sort();
    const last = JSON.parse(Deno.readTextFileSync(`${dir}/ckpt/${ckpts.at(-1)}`));
    ok(
      last.trees.every((t: never) => depthOf(t) <= (c.args.depth as number)),
      `${c.id} grows depth ≤ ${c.args.depth}`,
    );
  }
  const incidents: Incident[] = Deno.readTextFileSync(`${out.run_dir}/incidents.jsonl`).split("\n").filter(
    Boolean,
  )
    .map((l) => JSON.parse(l));
  for (const k of incidents) {
    equal(k.type, "SUPERSEDED_KILL", "nothing but halving intervened");
    const e = k.evidence as SupersededEvidence;
    ok(e.rank! > e.keep! && g.halving!.rungs.includes(e.rung!) && e.step >= e.rung!, JSON.stringify(e));
  }
  const verified = g.configs.filter((c) => state.nodes[c.id]!.status === "verified");
  const scoreOf = (id: string) => state.nodes[id]!.manifest!.score!;
  if (out.verdict === "RESEARCH ANSWERED") {
    const best = verified.reduce((a, b) => (scoreOf(b.id) > scoreOf(a.id) ? b : a));
    equal(out.method, best.id, "the verdict rests on the best verified configuration");
  }
  for (const c of verified) equal(state.nodes[c.id]!.manifest!.data_hash, state.frozen!.data_hash);
  return state;
}

Deno.test("scenario sweep --real, on the generated data and on --data: arguments reach the trainer, the best verified configuration answers", async () => {
  const runs = await Deno.makeTempDir({ prefix: "arrow-sweep-real-" });
  const base = ["run", "--scenario", "sweep", "--real", "--json", "--runs-dir", runs];
  const csv = "tests/fixtures/csv/good.csv";
  try {
    const [gen, user] = await pool(
      [[], ["--data", csv, "--target", "target"]],
      2,
      (extra) => arrow([...base, ...extra]),
    );
    equal(gen!.code, 0, gen!.stderr);
    const a = JSON.parse(gen!.stdout) as Out;
    equal(a.verdict, "RESEARCH ANSWERED", "the GBDT beats OLS on the generated data");
    check(a);
    equal(user!.code, 0, user!.stderr);
    const b = JSON.parse(user!.stdout) as Out;
    ok(["RESEARCH ANSWERED", "NEGATIVE RESULT"].includes(b.verdict), b.verdict);
    const s = check(b);
    equal(s.frozen!.data_hash, await sha256(Deno.readFileSync(csv)), "the sweep ran on the user's file");
  } finally {
    await Deno.remove(runs, { recursive: true });
  }
});
