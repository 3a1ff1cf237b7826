/**
 * The planner against the scripted server: a valid reply, a reply repaired in one round from the loader's
 * file:line:col messages, a reply that stays broken (clear failure, nothing written), through the library
 * and through `arrow plan`.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { loadPlan } from "../../src/graph/load.ts";
import { EXAMPLE_PLAN, plannerSystemPrompt } from "../../src/llm/plan_prompt.ts";
import { extractYaml, PlanError, planFromQuestion, recordPlannerCalls } from "../../src/llm/planner.ts";
import { arrow } from "../helpers/cli.ts";
import { KEY, testClient } from "./helpers.ts";
import { loadScript, startScriptedServer } from "./scripted_server.ts";

const Q = "Does a fine-tuned small model beat a frozen linear baseline on a noisy regression task?";

Deno.test("plannerSystemPrompt() shows an example plan that the loader accepts, with agent workers", () => {
  const r = loadPlan(EXAMPLE_PLAN, "example.yaml");
  deepEqual(r.errors, []);
  ok(r.plan!.nodes.some((n) => n.worker?.type === "agent"));
  const prompt = plannerSystemPrompt();
  ok(prompt.includes(EXAMPLE_PLAN.trimEnd()));
  // The format outline is generated from the schema: every node field is there, mock knobs are not.
  match(prompt, /^ {2}worker: one of \(by type\):/m);
  match(prompt, /^ {4}- type: agent/m);
  ok(!/^ {2}mock:/m.test(prompt));
});

Deno.test("extractYaml() takes the yaml block, else the first block, else the whole reply", () => {
  equal(extractYaml("Plan:\n```yaml\na: 1\n```\n```\nb: 2\n```"), "a: 1\n");
  equal(extractYaml("```\nb: 2\n```"), "b: 2\n");
  equal(extractYaml("  a: 1"), "a: 1\n");
});

Deno.test("planFromQuestion() returns a valid plan from one call", async () => {
  await using s = await startScriptedServer(loadScript("planner_valid"));
  const out = await planFromQuestion(Q, { client: testClient(s.url), model: "planner-m", file: "plan.yaml" });
  equal(out.rounds, 1);
  equal(s.calls, 1);
  deepEqual(out.plan.nodes.map((n) => n.id), ["N0", "N1", "N3", "N4", "N6"]);
  equal(out.plan.nodes.find((n) => n.id === "N4")!.budget.tokens, 300000);
  match(out.text, /^question: Does a fine-tuned/);
  const sent = s.requests[0]!.body!.messages as { role: string; content: string }[];
  equal(sent[1]!.content, `Research question: ${Q}`);
  equal(out.calls[0]!.result.usage!.total_tokens, 2780);
});

Deno.test("recordPlannerCalls() writes the planner's calls as transcript lines, secrets redacted", async () => {
  await using s = await startScriptedServer(loadScript("planner_repair"));
  const out = await planFromQuestion(Q, { client: testClient(s.url), model: "m", file: "plan.yaml" });
  const dir = await Deno.makeTempDir();
  try {
    recordPlannerCalls(`${dir}/logs/agent/planner.jsonl`, out.calls, ["Does a fine-tuned"]);
    const lines = Deno.readTextFileSync(`${dir}/logs/agent/planner.jsonl`).trim().split("\n").map((l) =>
      JSON.parse(l)
    );
    deepEqual(lines.map((l) => [l.call, l.request.from, l.request.n_messages, l.usage.total_tokens]), [
      ["planner:1", 0, 2, 2550],
      ["planner:2", 2, 4, 2840],
    ]);
    match(lines[0].request.messages[1].content, /^Research question: \[REDACTED\] small model/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("planFromQuestion() repairs a plan in one round, sending the loader's file:line:col messages", async () => {
  await using s = await startScriptedServer(loadScript("planner_repair"));
  const out = await planFromQuestion(Q, { client: testClient(s.url), model: "m", file: "out/plan.yaml" });
  equal(out.rounds, 2);
  equal(s.calls, 2);
  const repair = (s.requests[1]!.body!.messages as { role: string; content: string }[]).at(-1)!.content;
  const first = extractYaml(String((s.requests[1]!.body!.messages as { content: string }[])[2]!.content));
  const expected = loadPlan(first, "out/plan.yaml").errors.map((d) =>
    `${d.file}:${d.line}:${d.col}: ${d.message}`
  );
  ok(expected.length >= 3, expected.join("\n"));
  for (const line of expected) ok(repair.includes(line), `repair message lists: ${line}`);
  match(repair, /^out\/plan\.yaml:7:5: /m);
  deepEqual(out.plan.nodes.map((n) => n.kind), ["fast", "fast"]);
});

Deno.test("planFromQuestion() fails clearly when the repaired plan is still broken", async () => {
  await using s = await startScriptedServer(loadScript("planner_broken"));
  let err: unknown;
  try {
    await planFromQuestion(Q, { client: testClient(s.url), model: "m", file: "plan.yaml" });
  } catch (e) {
    err = e;
  }
  ok(err instanceof PlanError);
  match(err.message, /still invalid after one repair round/);
  match(err.diagnostics[0]!, /^plan\.yaml:\d+:\d+: YAML: /);
  equal(err.calls.length, 2);
  equal(s.calls, 2);
});

function llmEnv(url: string): Record<string, string> {
  return {
    ARROW_LLM_BASE_URL: url,
    ARROW_LLM_API_KEY: KEY,
    ARROW_LLM_MODEL: "m",
    ARROW_LLM_MAX_RETRIES: "0",
  };
}

Deno.test("arrow plan writes a valid plan file that arrow validate accepts", async () => {
  const dir = await Deno.makeTempDir({ prefix: "arrow-plan-" });
  try {
    await using s = await startScriptedServer(loadScript("planner_repair"));
    const r = await arrow(["plan", Q, "-o", `${dir}/p.yaml`], { env: llmEnv(s.url) });
    equal(r.code, 0, r.stderr);
    match(
      r.stdout,
      /wrote .*p\.yaml \(2 nodes, 1 edges\) after one repair round, 2 call\(s\), 5390 tokens \(m\)/,
    );
    const v = await arrow(["validate", `${dir}/p.yaml`]);
    equal(v.code, 0, v.stdout);
    deepEqual([...Deno.readDirSync(dir)].map((d) => d.name), ["p.yaml"]);
    // An existing file is not replaced without --force, and no call is made.
    const again = await arrow(["plan", Q, "-o", `${dir}/p.yaml`], { env: llmEnv(s.url) });
    equal(again.code, 1);
    match(again.stderr, /p\.yaml exists; pass --force/);
    equal(s.calls, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("arrow plan writes a plan still broken after repair to .rejected.yaml, cited; names a missing API key", async () => {
  const dir = await Deno.makeTempDir({ prefix: "arrow-plan-" });
  try {
    await using s = await startScriptedServer(loadScript("planner_broken"));
    const r = await arrow(["plan", Q, "-o", `${dir}/p.yaml`], { env: llmEnv(s.url) });
    equal(r.code, 1);
    match(
      r.stderr,
      /^arrow plan: Cannot plan: the model's plan is still invalid after one repair round .*; .*p\.yaml not written, the rejected plan is in .*p\.rejected\.yaml\n/,
    );
    // Every citation opens: it names the rejected file, and that file has the line and column it names.
    const cites = [...r.stderr.matchAll(/(\S*p\.rejected\.yaml):(\d+):(\d+): YAML: /g)];
    ok(cites.length > 0, r.stderr);
    const text = Deno.readTextFileSync(`${dir}/p.rejected.yaml`).split("\n");
    for (const [, file, line, col] of cites) {
      equal(file, `${dir}/p.rejected.yaml`);
      ok(text.length >= Number(line) && text[Number(line) - 1]!.length + 1 >= Number(col), `${line}:${col}`);
    }
    deepEqual([...Deno.readDirSync(dir)].map((d) => d.name), ["p.rejected.yaml"]);
    const nokey = await arrow(["plan", Q, "-o", `${dir}/p.yaml`], { env: { ARROW_LLM_API_KEY: "" } });
    equal(nokey.code, 1);
    match(nokey.stderr, /^arrow plan: Cannot call the LLM: ARROW_LLM_API_KEY is not set\./);
    equal(s.calls, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
