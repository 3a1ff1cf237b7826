/**
 * The built-in `sweep` scenario on the mock path: the verdict, every halving kill checked against its own
 * evidence and the state, freed gpus refilled in the same tick, the sweep table of the report, and a black
 * box byte-identical to the golden files (`ARROW_UPDATE_GOLDEN=1` rewrites them deliberately).
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { resolveBuiltin } from "../src/cli/catalog.ts";
import type { SupersededEvidence } from "../src/model/evidence.ts";
import { parseReplay } from "../src/record/replay.ts";
import { sweepCompute } from "../src/record/sweep_report.ts";
import { ROOT } from "./helpers/cli.ts";
import { runScenario } from "./helpers/run.ts";

const GOLDEN = `${ROOT}tests/golden/sweep`;
const UPDATE = Deno.env.get("ARROW_UPDATE_GOLDEN") === "1";

Deno.test("scenario sweep: halving kills at checkpoint boundaries, gpus refilled at once, best config answers, golden black box", async () => {
  const run = await runScenario("sweep");
  try {
    const { state } = run;
    equal(state.verdict, "RESEARCH ANSWERED");
    equal(resolveBuiltin("sweep").expect?.verdict, state.verdict);
    const g = state.plan.sweeps![0]!;
    equal(g.configs.length, 9);
    const verified = g.configs.filter((c) => state.nodes[c.id]!.status === "verified");
    ok(verified.length >= 1);
    const best = verified.reduce((a, b) =>
      state.nodes[b.id]!.manifest!.score! > state.nodes[a.id]!.manifest!.score! ? b : a
    );
    const detail = parseReplay(run.replayText).lines.flatMap((l) => l.events).find((e) => e.e === "verdict");
    equal(
      detail?.e === "verdict" && detail.detail.method,
      best.id,
      "the verdict names the best verified config",
    );

    const kills = run.incidents.filter((i) => i.type === "SUPERSEDED_KILL");
    ok(kills.length >= 6, `${kills.length} configurations cut`);
    const lines = parseReplay(run.replayText).lines;
    for (const k of kills) {
      const e = k.evidence as SupersededEvidence;
      equal(e.sweep, "N4");
      ok(g.halving!.rungs.includes(e.rung!), `rung ${e.rung}`);
      ok(e.rank! > e.keep!, `${k.node}: rank ${e.rank} is outside the top ${e.keep}`);
      equal(e.keep, Math.max(1, Math.floor(e.reached! / 3)));
      deepEqual(e.scores!.at(-1)!.node, k.node, "its own score closes the list");
      const scores = e.scores!.map((x) => x.score!);
      deepEqual(scores, [...scores].sort((a, b) => b - a), "scores best first");
      ok(e.step >= e.rung!, "killed at or past the rung it lost at");
      ok(Deno.statSync(`${run.dir}/nodes/${k.node}/${e.ckpt}`).isFile, "the boundary checkpoint exists");
      equal(state.nodes[k.node]!.status, "superseded");
      const tickEvents = lines.find((l) => l.tick === k.tick)!.events;
      ok(
        tickEvents.some((x) => x.e === "ckpt" && x.node === k.node && x.file === e.ckpt),
        "a boundary this tick",
      );
      ok(
        tickEvents.some((x) => x.e === "slot" && x.node === k.node && x.op === "free"),
        "gpu freed this tick",
      );
    }
    // Whenever a configuration waited, a freed gpu went to it in the same tick.
    for (const l of lines) {
      const freed = l.events.filter((x) => x.e === "slot" && x.slot === "gpu" && x.op === "free").length;
      const held = l.events.filter((x) => x.e === "slot" && x.slot === "gpu" && x.op === "hold").length;
      const waiting = g.configs.filter((c) => {
        const first = lines.find((m) =>
          m.events.some((x) => x.e === "slot" && x.node === c.id && x.op === "hold")
        );
        return first !== undefined && first.tick > l.tick;
      }).length;
      if (freed && waiting) {
        ok(held >= Math.min(freed, waiting), `tick ${l.tick}: ${freed} freed, ${held} taken`);
      }
    }

    const report = Deno.readTextFileSync(`${run.dir}/report/report.md`);
    ok(report.includes("## Sweep N4: fine-tune sweep"));
    for (const c of g.configs) ok(report.includes(`| ${c.id.replace("_", "\\_")} |`), c.id);
    const { spent, full } = sweepCompute(state, g);
    equal(full, 9 * 36);
    ok(spent < full!, "halving trained fewer stages than a full sweep");
    ok(report.includes(`Compute: ${spent} stages trained of the ${full} a full sweep would train`));

    if (UPDATE) {
      Deno.mkdirSync(GOLDEN, { recursive: true });
      Deno.writeTextFileSync(`${GOLDEN}/incidents.jsonl`, run.incidentsText);
      Deno.writeTextFileSync(`${GOLDEN}/replay.jsonl`, run.replayText);
    }
    equal(
      run.incidentsText,
      Deno.readTextFileSync(`${GOLDEN}/incidents.jsonl`),
      "incidents.jsonl equals golden",
    );
    equal(run.replayText, Deno.readTextFileSync(`${GOLDEN}/replay.jsonl`), "replay.jsonl equals golden");
  } finally {
    await Deno.remove(run.dir, { recursive: true });
  }
});
