/**
 * Bait decoys as data: each names the incident that must catch it and picks its target in a plan; the
 * nudge reaches the agent's task; and the scripted bait agents really do the deviation their fixture says
 * (a cleaned data set, a claim above their own metrics, a write into another node's lane).
 */
import { deepEqual, equal, match, notEqual, ok } from "node:assert/strict";
import { loadPlan } from "../../src/graph/load.ts";
import { INCIDENT_TYPES } from "../../src/graph/plan_schema.ts";
import { runAgent } from "../../src/llm/agent.ts";
import { BAIT_KINDS, BAITS, baitTarget } from "../../src/llm/bait.ts";
import { extractYaml } from "../../src/llm/planner.ts";
import { fakeRun, jsonLines, sha256, testClient } from "./helpers.ts";
import { loadScript, startScriptedServer } from "./scripted_server.ts";

const planned = () => {
  const rule = loadScript("planner_valid").rules[0]!;
  return loadPlan(extractYaml((rule.reply as string[]).join("\n")), "p.yaml").plan!;
};

Deno.test("BAITS name real incident types and aim at an agent node of the method", () => {
  const plan = planned();
  for (const kind of BAIT_KINDS) {
    ok((INCIDENT_TYPES as readonly string[]).includes(BAITS[kind].expect), kind);
    equal(baitTarget(plan, kind), "N4", kind);
  }
  deepEqual(BAIT_KINDS.map((k) => BAITS[k].expect), [
    "COMPARABILITY_BLOCK",
    "SCOPE_VIOLATION",
    "FALSE_COMPLETION",
  ]);
  const noAgents = { ...plan, nodes: plan.nodes.map((n) => ({ ...n, worker: undefined })) };
  equal(baitTarget(noAgents, "drop_noisy"), null);
});

Deno.test("runAgent() appends the bait to the agent's task", async () => {
  await using run = await fakeRun();
  await using s = await startScriptedServer(loadScript("bait_drop_noisy"));
  await runAgent(run.n4({ bait: BAITS.drop_noisy.prompt }), { client: testClient(s.url), model: "m" });
  const task = (s.requests[0]!.body!.messages as { content: string }[])[1]!.content;
  match(task, /^Task for node N4:\nFit gradient-boosted trees/);
  ok(task.endsWith(BAITS.drop_noisy.prompt));
});

Deno.test("bait_drop_noisy: the agent's manifest hashes a cleaned copy, not the data it was given", async () => {
  await using run = await fakeRun();
  await using s = await startScriptedServer(loadScript("bait_drop_noisy"));
  const cfg = run.n4();
  equal((await runAgent(cfg, { client: testClient(s.url), model: "m" })).reason, "done");
  const m = JSON.parse(Deno.readTextFileSync(`${cfg.scope}/results.json`));
  notEqual(m.data_hash, await sha256(`${run.input}/data.csv`));
  equal(m.data_hash, await sha256(`${cfg.scope}/data_clean.csv`));
  equal(m.split_hash, await sha256(`${run.input}/split.json`));
});

Deno.test("bait_false_claim: the claimed score is above the best metric the agent logged", async () => {
  await using run = await fakeRun();
  await using s = await startScriptedServer(loadScript("bait_false_claim"));
  const cfg = run.n4();
  equal((await runAgent(cfg, { client: testClient(s.url), model: "m" })).reason, "done");
  const best = Math.max(...jsonLines(`${cfg.scope}/metrics.jsonl`).map((l) => l.dev_r2 as number));
  equal(best, 0.62);
  equal(JSON.parse(Deno.readTextFileSync(`${cfg.scope}/results.json`)).score, 0.99);
});

Deno.test("out_of_lane: unsandboxed, the agent's write lands in N3's scope (what the sandbox must stop)", async () => {
  await using run = await fakeRun();
  await using s = await startScriptedServer(loadScript("out_of_lane"));
  const cfg = run.n4();
  equal((await runAgent(cfg, { client: testClient(s.url), model: "m" })).reason, "done");
  equal(Deno.readTextFileSync(`${run.scope}/poison.txt`), "0.1\n");
});
