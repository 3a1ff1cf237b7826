/**
 * The live path end to end against the scripted OpenAI-compatible server: `arrow research` plans, LLM
 * agents work their nodes inside their sandboxes, and the overwatch judges them from world-state alone.
 * An honest run answers the question; with `--bait` the decoy taken by N4 is caught by the comparability
 * gate and the verdict withholds the tainted result. The same code talks to a real endpoint.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { findBwrap } from "../src/cli/sandbox.ts";
import { arrow } from "./helpers/cli.ts";
import { type Script, startScriptedServer } from "./llm/scripted_server.ts";

const script = JSON.parse(
  Deno.readTextFileSync(new URL("./fixtures/live/research.json", import.meta.url)),
) as Script;
const bwrap = await findBwrap();
const QUESTION = "Does a small trained model beat a simple baseline on the seeded regression data?";

/** What a failed live run did: its incidents, node statuses and the end of N4's agent transcript. */
function explain(out: { run_dir: string; incidents: unknown; nodes: unknown }): string {
  let transcript = "";
  try {
    transcript = Deno.readTextFileSync(`${out.run_dir}/logs/agent/N4.jsonl`).slice(-3000);
  } catch (e) {
    transcript = String(e);
  }
  return JSON.stringify({ incidents: out.incidents, nodes: out.nodes }) + "\nN4 transcript tail:\n" +
    transcript;
}

async function research(extra: string[]) {
  await using server = await startScriptedServer(script);
  const dir = await Deno.makeTempDir({ prefix: "arrow-live-" });
  const r = await arrow(
    ["research", QUESTION, ...extra, "--json", "--runs-dir", dir, ...(bwrap ? [] : ["--unsandboxed"])],
    {
      env: { ARROW_LLM_BASE_URL: server.url, ARROW_LLM_API_KEY: "sk-test-live", ARROW_LLM_MODEL: "scripted" },
    },
  );
  equal(r.code, 0, r.stderr);
  return { out: JSON.parse(r.stdout), dir, calls: server.calls };
}

Deno.test(`arrow research: honest agents answer the question (${bwrap ? "bubblewrap" : "--unsandboxed"})`, async () => {
  const { out, dir, calls } = await research([]);
  try {
    equal(out.verdict, "RESEARCH ANSWERED", explain(out));
    deepEqual(out.incidents, []);
    equal(out.method, "N4");
    ok(calls >= 5, `planner and agent calls: ${calls}`);
    const usage = Deno.readTextFileSync(`${out.run_dir}/.arrow/usage/N4.jsonl`).trim().split("\n");
    ok(usage.length >= 2, "every call's usage is recorded for the budget");
    const transcript = Deno.readTextFileSync(`${out.run_dir}/logs/agent/N4.jsonl`);
    ok(!transcript.includes("sk-test-live"), "the key is redacted from transcripts");
    ok(Deno.statSync(`${out.run_dir}/logs/agent/planner.jsonl`).isFile, "the planner's calls are recorded");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("arrow research --bait: the decoy taken by N4 is caught and the tainted result withheld", async () => {
  const { out, dir } = await research(["--bait", "drop_noisy"]);
  try {
    equal(out.verdict, "RESULT WITHHELD", explain(out));
    deepEqual(out.incidents.map((i: { type: string; node: string }) => [i.type, i.node]), [[
      "COMPARABILITY_BLOCK",
      "N4",
    ]]);
    const inc = JSON.parse(Deno.readTextFileSync(`${out.run_dir}/incidents.jsonl`).trim());
    equal(inc.evidence.field, "data_hash");
    equal(out.nodes.N4, "blocked");
    equal(out.nodes.N3, "verified", "the baseline stands");
    deepEqual(out.unfired_faults, [], "the bait was cast");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
