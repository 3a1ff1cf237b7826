/**
 * Resume without repeats: a restarted agent (same attempt) replays its transcript — replies and finished
 * commands — makes no call twice, bills none twice, and never re-runs a command a restart interrupted.
 */
import { deepEqual, equal, match } from "node:assert/strict";
import { runAgent } from "../../src/llm/agent.ts";
import type { ExecResult } from "../../src/llm/exec.ts";
import { runCommand } from "../../src/llm/exec.ts";
import { fakeRun, jsonLines, KEY, testClient } from "./helpers.ts";
import { loadScript, type Script, startScriptedServer } from "./scripted_server.ts";

/** The honest script with turn 2 hanging (the first time only). */
function hangingAtTurn2(): Script {
  const s = loadScript("honest_n3");
  return { rules: [{ when: { turn: 2 }, reply: "never", delay_ms: 60_000, times: 1 }, ...s.rules] };
}

Deno.test("runAgent() resumed after a stop replays its transcript and makes only the missing calls", async () => {
  await using run = await fakeRun();
  const cfg = run.cfg();
  {
    await using s = await startScriptedServer(hangingAtTurn2());
    const stop = new AbortController();
    const first = runAgent(cfg, {
      client: testClient(s.url),
      model: "m",
      signal: stop.signal,
      secrets: [KEY],
    });
    await s.waitForCalls(3);
    stop.abort();
    const out = await first;
    equal(out.reason, "stopped");
    equal(out.calls, 2);
  }
  await using s = await startScriptedServer(loadScript("honest_n3"));
  const out = await runAgent(cfg, { client: testClient(s.url), model: "m", secrets: [KEY] });
  deepEqual(out, { reason: "done", steps: 4, calls: 2, replayed: { calls: 2, commands: 2 } });
  // Turns 0 and 1 were never asked again.
  deepEqual([0, 1, 2, 3].map((i) => s.hits(i)), [0, 0, 1, 1]);
  // The conversation the server saw on resume is the one it would have seen without the stop.
  const resumed = s.requests[0]!.body!.messages as { role: string; content: string }[];
  equal(resumed.length, 6);
  match(resumed.at(-1)!.content, /^exit: 0\nstdout:\n2 metrics\.jsonl/);
  // Each call billed once; metrics written once (the command of step 2 was not run again).
  deepEqual(jsonLines(cfg.usage).map((u) => u.call), ["N3:1:1", "N3:1:2", "N3:1:3", "N3:1:4"]);
  equal(jsonLines(`${run.scope}/metrics.jsonl`).length, 2);
  const starts = jsonLines(cfg.transcript).filter((r) => r.type === "start");
  deepEqual(starts.map((r) => r.replayed), [{ calls: 0, commands: 0 }, { calls: 2, commands: 2 }]);
});

Deno.test("runAgent() never re-runs a command a restart interrupted; the agent is told instead", async () => {
  await using run = await fakeRun();
  const cfg = run.cfg();
  {
    await using s = await startScriptedServer(loadScript("honest_n3"));
    await runAgent(cfg, { client: testClient(s.url), model: "m" });
  }
  // The files as a kill -9 during step 2's command leaves them: its call recorded, its command not.
  const lines = Deno.readTextFileSync(cfg.transcript).split("\n").filter(Boolean);
  const cut = lines.findIndex((l) => JSON.parse(l).type === "call" && JSON.parse(l).step === 2);
  Deno.writeTextFileSync(cfg.transcript, lines.slice(0, cut + 1).join("\n") + "\n");
  const usage = Deno.readTextFileSync(cfg.usage).split("\n").filter(Boolean);
  Deno.writeTextFileSync(cfg.usage, usage.slice(0, 2).join("\n") + "\n");
  const ran: string[] = [];
  const spy = (argv: string[], o: Parameters<typeof runCommand>[1]): Promise<ExecResult> => {
    ran.push(argv.at(-1)!);
    return runCommand(argv, o);
  };
  await using s = await startScriptedServer(loadScript("honest_n3"));
  const out = await runAgent(cfg, { client: testClient(s.url), model: "m", exec: spy });
  equal(out.reason, "done");
  equal(out.calls, 2);
  equal(ran.length, 1, "only step 3's command ran in the resumed worker");
  match(ran[0]!, /python3/);
  const told = (s.requests[0]!.body!.messages as { content: string }[]).at(-1)!.content;
  match(told, /^exit: none — the worker was restarted while this command ran; it was not run again/);
  const cmds = jsonLines(cfg.transcript).filter((r) => r.type === "command");
  deepEqual(cmds.map((c) => [c.step, c.interrupted]), [[1, false], [2, true], [3, false]]);
  deepEqual(jsonLines(cfg.usage).map((u) => u.call), ["N3:1:1", "N3:1:2", "N3:1:3", "N3:1:4"]);
});

Deno.test("runAgent() restores a usage line a crash lost, without calling again", async () => {
  await using run = await fakeRun();
  const cfg = run.cfg();
  await using s = await startScriptedServer(loadScript("honest_n3"));
  await runAgent(cfg, { client: testClient(s.url), model: "m" });
  const lines = Deno.readTextFileSync(cfg.usage).split("\n").filter(Boolean);
  Deno.writeTextFileSync(cfg.usage, lines.slice(0, 3).join("\n") + "\n");
  const out = await runAgent(cfg, { client: testClient(s.url), model: "m" });
  equal(out.reason, "done");
  equal(out.calls, 0);
  equal(s.calls, 4);
  deepEqual(jsonLines(cfg.usage).map((u) => [u.call, u.tokens]), [
    ["N3:1:1", 920],
    ["N3:1:2", 1040],
    ["N3:1:3", 1220],
    ["N3:1:4", 1315],
  ]);
});

Deno.test("runAgent() starts a new attempt afresh, with call ids of that attempt", async () => {
  await using run = await fakeRun();
  await using s = await startScriptedServer(loadScript("honest_n3"));
  await runAgent(run.cfg(), { client: testClient(s.url), model: "m" });
  const out = await runAgent(run.cfg({ attempt: 2, lap: 2 }), { client: testClient(s.url), model: "m" });
  equal(out.calls, 4);
  equal(s.calls, 8);
  deepEqual(jsonLines(run.cfg().usage).slice(4).map((u) => u.call), ["N3:2:1", "N3:2:2", "N3:2:3", "N3:2:4"]);
});
