/**
 * Misbehaving LLM agents on the live path (`arrow run plan.yaml --live`) against the scripted server: an
 * agent that spins (tokens burn, scope frozen), one that writes outside its lane, one that claims a score
 * its own metrics do not back, and a kill -9 of arrow mid-run followed by `arrow resume` that does not
 * repeat or re-bill calls already made. Each is judged from world-state: the same incidents as any worker.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { findBwrap } from "../src/cli/sandbox.ts";
import { arrow, ROOT, spawnArrow } from "./helpers/cli.ts";
import { type Rule, startScriptedServer } from "./llm/scripted_server.ts";

const bwrap = await findBwrap();
const PLAN = `${ROOT}tests/fixtures/live/plan.yaml`;
const SANDBOX = bwrap ? [] : ["--unsandboxed"];

/** The manifest command a scripted agent runs: score, and the data file its hashes are taken of. */
function manifest(score: number, say: string): string[] {
  return [
    "```bash",
    "python3 - <<'PY'",
    "import hashlib, json, os",
    "src = json.loads(os.environ['ARROW_INPUTS'])['N1']",
    "h = lambda p: hashlib.sha256(open(os.path.join(src, p), 'rb').read()).hexdigest()",
    "frozen = json.loads(os.environ.get('ARROW_FROZEN', '{}'))",
    `json.dump({'node': os.environ['ARROW_NODE'], 'metric': 'dev_r2', 'score': ${score}, 'data_hash': h('data.csv'),`,
    "           'split_hash': h('split.json'), 'seed': frozen.get('seed', 7),",
    "           'protocol_version': os.environ['ARROW_PROTOCOL_VERSION']}, open('results.json', 'w'))",
    `print('${say}')`,
    "PY",
    "```",
  ];
}

const honestN3: Rule[] = [
  { when: { system: "node N3", turn: 0 }, reply: manifest(0.57, "baseline written") },
  { when: { system: "node N3", last: "baseline written" }, reply: "DONE" },
];

async function live(n4: Rule[], extra: string[] = []) {
  await using server = await startScriptedServer({ rules: [...honestN3, ...n4] });
  const dir = await Deno.makeTempDir({ prefix: "arrow-live-" });
  const env = { ARROW_LLM_BASE_URL: server.url, ARROW_LLM_API_KEY: "sk-live", ARROW_LLM_MODEL: "scripted" };
  const r = await arrow(["run", PLAN, "--live", "--json", "--runs-dir", dir, ...SANDBOX, ...extra], { env });
  equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  const incidents = Deno.readTextFileSync(`${out.run_dir}/incidents.jsonl`).trim().split("\n").filter(Boolean)
    .map((l) => JSON.parse(l));
  return { out, incidents, dir, calls: server.calls };
}

Deno.test("a spinning agent (tokens burn, scope frozen) is bounced with BUDGET_TRIP, then fused", async () => {
  const spin: Rule[] = [{
    when: { system: "node N4" },
    reply: ["Let me look again.", "```bash", "ls", "```"],
    usage: { prompt_tokens: 1200, completion_tokens: 30 },
    delay_ms: 50,
  }];
  const { out, incidents, dir } = await live(spin);
  try {
    const trips = incidents.filter((i) => i.node === "N4").map((i) => [i.type, i.ladder]);
    deepEqual(trips, [["BUDGET_TRIP", "bounce"], ["BUDGET_TRIP", "bounce"], ["BUDGET_TRIP", "fuse"]]);
    ok(incidents[0].evidence.tokens_burned > 0, "tokens from the API's usage fields");
    // Seen in the agent's own steps: K_FREEZE of them, with what they burned.
    equal(incidents[0].evidence.frozen_steps, 3);
    ok(incidents[0].evidence.tokens_burned >= 3 * 1230, JSON.stringify(incidents[0].evidence));
    equal(out.nodes.N4, "killed");
    equal(out.verdict, "NO VERDICT", "a spun-out method decides nothing");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "an agent writing into another node's scope is caught in the shadow and blamed",
  ignore: !bwrap,
  fn: async () => {
    const lane: Rule[] = [
      {
        when: { system: "node N4", turn: 0 },
        reply: ["```bash", 'echo better > "$ARROW_NODES/N3/results.json.new"; echo tried', "```"],
      },
      { when: { system: "node N4", last: "tried" }, reply: manifest(0.79, "manifest written") },
      { when: { system: "node N4", last: "manifest written" }, reply: "DONE" },
    ];
    const { out, incidents, dir } = await live(lane);
    try {
      const v = incidents.find((i) => i.type === "SCOPE_VIOLATION");
      ok(v, JSON.stringify(incidents));
      equal(v.node, "N4");
      equal(v.evidence.attempts[0].stopped_by, "bwrap-shadow");
      ok(String(v.evidence.paths[0]).endsWith("N3/results.json.new"));
      equal(out.verdict, "RESULT WITHHELD");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
if (!bwrap) {
  console.log("live_scenarios_test: out-of-lane agent test ignored: bubblewrap is not available here");
}

Deno.test("an agent claiming more than its own metrics show is refused as FALSE_COMPLETION", async () => {
  const liar: Rule[] = [
    {
      when: { system: "node N4", turn: 0 },
      reply: [
        "```bash",
        `printf '{"step": 1, "dev_r2": 0.6}\\n{"step": 2, "dev_r2": 0.62}\\n' >> metrics.jsonl`,
        "```",
      ],
    },
    { when: { system: "node N4", turn: 1 }, reply: manifest(0.99, "claimed") },
    { when: { system: "node N4", last: "claimed" }, reply: "DONE" },
  ];
  const { out, incidents, dir } = await live(liar);
  try {
    const fc = incidents.filter((i) => i.type === "FALSE_COMPLETION");
    ok(fc.length >= 1, JSON.stringify(incidents));
    equal(fc[0].evidence.observed_best, 0.62, JSON.stringify(incidents));
    equal(fc[0].evidence.claimed_score, 0.99);
    equal(fc.at(-1).ladder, "fuse", "the same claim again did not improve");
    equal(out.verdict, "RESULT WITHHELD");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

function usageLines(path: string): { call: string }[] {
  try {
    return Deno.readTextFileSync(path).trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
  } catch {
    return [];
  }
}

Deno.test("kill -9 of arrow during a live run, then resume: calls made are not repeated", async () => {
  const slow: Rule[] = [
    // Each step leaves work in the scope, as a working agent does: a frozen scope while tokens burn is a
    // spinning agent (BUDGET_TRIP), and this test is about the resume, not about that.
    {
      when: { system: "node N4", turn: 0 },
      reply: ["```bash", "sleep 1; echo step one | tee -a work.txt", "```"],
    },
    {
      when: { system: "node N4", last: "step one" },
      reply: ["```bash", "sleep 1; echo step two | tee -a work.txt", "```"],
    },
    // After a resume the agent hears that the command in flight at the kill was not run; it asks again.
    {
      when: { system: "node N4", last: "was not run again" },
      reply: ["```bash", "sleep 1; echo step two | tee -a work.txt", "```"],
    },
    { when: { system: "node N4", last: "step two" }, reply: manifest(0.79, "manifest written") },
    { when: { system: "node N4", last: "manifest written" }, reply: "DONE" },
  ];
  await using server = await startScriptedServer({ rules: [...honestN3, ...slow] });
  const dir = await Deno.makeTempDir({ prefix: "arrow-live-kill-" });
  const env = { ARROW_LLM_BASE_URL: server.url, ARROW_LLM_API_KEY: "sk-live", ARROW_LLM_MODEL: "scripted" };
  try {
    const child = spawnArrow(["run", PLAN, "--live", "--quiet", "--runs-dir", dir, ...SANDBOX], "null", env);
    await server.waitForCalls(4);
    child.kill("SIGKILL");
    await child.status;
    const runDir = `${dir}/${[...Deno.readDirSync(dir)][0]!.name}`;
    // The calls whose answers arrow had recorded when it died: a call still in flight at the kill had no
    // recorded answer, and asking it again is right.
    const recordedAtKill = usageLines(`${runDir}/.arrow/usage/N4.jsonl`).length;
    const r = await arrow(["resume", runDir, "--json"], { env });
    equal(r.code, 0, r.stderr);
    equal(JSON.parse(r.stdout).verdict, "RESEARCH ANSWERED");
    const usage = usageLines(`${runDir}/.arrow/usage/N4.jsonl`);
    const ids = usage.map((u) => u.call);
    deepEqual(ids, [...new Set(ids)], "every call billed once");
    // No conversation state that had an answer is asked again (N4's calls are sequential, recorded in order).
    const asked = server.requests.filter((q) => JSON.stringify(q.body?.messages ?? "").includes("node N4"))
      .map((q) => JSON.stringify(q.body?.messages));
    ok(recordedAtKill >= 1, "the kill came after a recorded call");
    for (const [i, a] of asked.slice(0, recordedAtKill).entries()) {
      equal(asked.filter((b) => b === a).length, 1, `answered call ${i + 1} was asked again`);
    }
    const state = JSON.parse(Deno.readTextFileSync(`${runDir}/state.json`));
    equal(state.nodes.N4.attempt, 1, "the agent continued its attempt instead of starting over");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
