/**
 * The agent worker as a process, the way the engine starts it: killed with SIGKILL in the middle of a call
 * and restarted (same attempt), it finishes without repeating or re-billing a call; a missing API key and
 * a broken config fail with clear messages.
 */
import { deepEqual, equal, match } from "node:assert/strict";
import type { AgentConfig } from "../../src/llm/config.ts";
import { fakeRun, jsonLines, KEY } from "./helpers.ts";
import { loadScript, startScriptedServer } from "./scripted_server.ts";

const WORKER = new URL("../../src/workers/agent_worker.ts", import.meta.url).pathname;

function worker(cfg: AgentConfig | string, env: Record<string, string>): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-prompt", "--quiet", WORKER],
    env: {
      PATH: Deno.env.get("PATH")!,
      HOME: Deno.env.get("HOME") ?? "/tmp",
      ARROW_CONFIG: typeof cfg === "string" ? cfg : JSON.stringify(cfg),
      RUST_BACKTRACE: "0",
      NO_COLOR: "1",
      ...env,
    },
    clearEnv: true,
    stdout: "null",
    stderr: "piped",
  }).spawn();
}

async function finish(p: Deno.ChildProcess): Promise<{ code: number; stderr: string }> {
  const out = await p.output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("agent_worker killed with SIGKILL mid-call resumes without repeating or re-billing a call", async () => {
  await using run = await fakeRun();
  const honest = loadScript("honest_n3");
  // Turn 2 hangs the first time it is asked: the worker is killed while it waits.
  await using s = await startScriptedServer({
    rules: [{ when: { turn: 2 }, reply: "never", delay_ms: 60_000, times: 1 }, ...honest.rules],
  });
  const cfg = run.cfg();
  const env = { ARROW_LLM_BASE_URL: s.url, ARROW_LLM_API_KEY: KEY, ARROW_LLM_MODEL: "m-live" };
  const first = worker(cfg, env);
  await s.waitForCalls(3);
  first.kill("SIGKILL");
  const killed = await finish(first);
  equal(killed.code, 137);
  deepEqual(jsonLines(cfg.usage).map((u) => u.call), ["N3:1:1", "N3:1:2"]);

  const again = await finish(worker(cfg, env));
  equal(again.code, 0, again.stderr);
  match(again.stderr, /arrow agent N3: DONE after 4 step\(s\), 2 call\(s\), 2 replayed from the transcript/);
  // Server side: turns 0 and 1 answered once each; turn 2 asked twice (the first never answered).
  equal(s.calls, 5);
  deepEqual([1, 2, 3, 4].map((i) => s.hits(i)), [1, 1, 1, 1]);
  const usage = jsonLines(cfg.usage);
  deepEqual(usage.map((u) => u.call), ["N3:1:1", "N3:1:2", "N3:1:3", "N3:1:4"]);
  equal(usage.reduce((n, u) => n + (u.tokens as number), 0), 920 + 1040 + 1220 + 1315);
  equal(JSON.parse(Deno.readTextFileSync(`${run.scope}/results.json`)).score, 0.6041);
  equal(jsonLines(`${run.scope}/metrics.jsonl`).length, 2);
  equal(Deno.readTextFileSync(cfg.transcript).includes(KEY), false);
});

Deno.test("agent_worker without ARROW_LLM_API_KEY exits 1 naming the variable", async () => {
  await using run = await fakeRun();
  const r = await finish(worker(run.cfg(), { ARROW_LLM_MODEL: "m" }));
  equal(r.code, 1);
  match(r.stderr, /^arrow agent N3: Cannot call the LLM: ARROW_LLM_API_KEY is not set\./);
});

Deno.test("agent_worker names the bad field of a broken ARROW_CONFIG and exits 2", async () => {
  await using run = await fakeRun();
  const bad = { ...run.cfg(), sandbox: "bwrap" };
  const r = await finish(worker(JSON.stringify(bad), { ARROW_LLM_API_KEY: KEY }));
  equal(r.code, 2);
  match(r.stderr, /ARROW_CONFIG field "sandbox" must be an array of strings/);
  const notJson = await finish(worker("{", { ARROW_LLM_API_KEY: KEY }));
  equal(notJson.code, 2);
  match(notJson.stderr, /ARROW_CONFIG is not JSON/);
});
