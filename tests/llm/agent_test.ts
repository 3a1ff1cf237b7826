/**
 * The agent loop against the scripted server, commands run by bash directly in a temporary scope: an honest
 * agent's files, the step limit, format errors, secrets kept out of commands and transcripts.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { runAgent } from "../../src/llm/agent.ts";
import { fakeRun, gone, jsonLines, KEY, sha256, testClient } from "./helpers.ts";
import { loadScript, startScriptedServer } from "./scripted_server.ts";

Deno.test("runAgent() lets an honest agent write metrics and results, billing the API's usage only", async () => {
  await using run = await fakeRun();
  await using s = await startScriptedServer(loadScript("honest_n3"));
  const cfg = run.cfg();
  const out = await runAgent(cfg, { client: testClient(s.url), model: "m-honest", secrets: [KEY] });
  deepEqual(out, { reason: "done", steps: 4, calls: 4, replayed: { calls: 0, commands: 0 } });
  equal(s.calls, 4);

  const results = JSON.parse(await Deno.readTextFile(`${run.scope}/results.json`));
  equal(results.node, "N3");
  equal(results.score, 0.6041);
  equal(results.data_hash, await sha256(`${run.input}/data.csv`));
  equal(results.split_hash, await sha256(`${run.input}/split.json`));
  equal(results.protocol_version, "p1-dev-r2");
  equal(jsonLines(`${run.scope}/metrics.jsonl`).length, 2);

  // One usage line per call, tokens exactly as the server reported (the agent's "12 tokens" is ignored).
  const usage = jsonLines(cfg.usage);
  deepEqual(usage.map((u) => u.call), ["N3:1:1", "N3:1:2", "N3:1:3", "N3:1:4"]);
  deepEqual(usage.map((u) => u.tokens), [920, 1040, 1220, 1315]);
  deepEqual(usage.map((u) => u.cost), [0.0001, 0.0001, 0.0002, 0.0001]);
  equal(usage[0]!.model, "m-honest");
  equal(usage[0]!.via, "worker");

  // The first command ran in the scope and saw its inputs; its output went back to the model.
  const second = s.requests[1]!.body!.messages as { role: string; content: string }[];
  match(
    second.at(-1)!.content,
    /^exit: 0\nstdout:\n\.\n\.\.\n\{"N1":"[^"]+\/nodes\/N1"\}\nstderr: \(empty\)\n\(step 1 of 30\)$/,
  );
  match(second[0]!.content, /node N3 \(role baseline, kind fast\)/);
  match(second[1]!.content, /^Task for node N3:\nFit the OLS baseline/);

  const tr = jsonLines(cfg.transcript);
  deepEqual(tr.map((r) => r.type), [
    "start",
    "call",
    "command",
    "call",
    "command",
    "call",
    "command",
    "call",
    "end",
  ]);
  const firstCall = tr[1]!;
  equal((firstCall.request as { from: number }).from, 0);
  equal((firstCall.request as { messages: unknown[] }).messages.length, 2);
  const laterCall = tr[3]!;
  deepEqual(laterCall.request as { from: number; n_messages: number }, {
    from: 2,
    n_messages: 4,
    messages: (laterCall.request as { messages: unknown[] }).messages,
  });
  equal(tr.at(-1)!.reason, "done");
});

Deno.test("runAgent() stops at max_steps, explaining a reply with no command as a format error", async () => {
  await using run = await fakeRun();
  await using s = await startScriptedServer(loadScript("spinner"));
  const cfg = run.cfg({ args: { prompt: "Do something.", max_steps: 3 } });
  const out = await runAgent(cfg, { client: testClient(s.url), model: "m" });
  equal(out.reason, "max_steps");
  equal(out.steps, 3);
  equal(s.calls, 3);
  const third = s.requests[2]!.body!.messages as { content: string }[];
  match(
    third.at(-1)!.content,
    /^Your reply was not understood: the reply holds no ```bash block and no DONE line\./,
  );
  equal(jsonLines(cfg.transcript).at(-1)!.reason, "max_steps");
  equal(jsonLines(cfg.usage).length, 3);
});

Deno.test("runAgent() keeps secrets out of commands and redacts them from the transcript", async () => {
  await using run = await fakeRun();
  const leak = "hunter2-very-secret-value";
  await using s = await startScriptedServer({
    rules: [
      {
        when: { turn: 0 },
        reply: [
          "```bash",
          `echo "key=[$ARROW_LLM_API_KEY] svc=[$MY_SERVICE_TOKEN] cfg=[$ARROW_CONFIG]"; echo ${leak}`,
          `echo "Authorization: Bearer abcdef0123456789"; echo API_TOKEN=${leak}x`,
          "```",
        ],
      },
      { reply: "DONE" },
    ],
  });
  const cfg = run.cfg();
  const env = {
    PATH: Deno.env.get("PATH")!,
    ARROW_LLM_API_KEY: KEY,
    MY_SERVICE_TOKEN: leak,
    ARROW_CONFIG: "{}",
  };
  const out = await runAgent(cfg, { client: testClient(s.url), model: "m", env, secrets: [KEY] });
  equal(out.reason, "done");
  const fed = (s.requests[1]!.body!.messages as { content: string }[]).at(-1)!.content;
  match(fed, /key=\[\] svc=\[\] cfg=\[\]/);
  const text = await Deno.readTextFile(cfg.transcript);
  ok(!text.includes(leak), "the secret value is redacted");
  ok(!text.includes(KEY), "the API key is redacted");
  ok(!text.includes("abcdef0123456789"), "the bearer token is redacted");
  match(text, /Bearer \[REDACTED\]/);
  match(text, /API_TOKEN=\[REDACTED\]/);
});

Deno.test("runAgent() kills a command that runs out of time, and what it left running", async () => {
  await using run = await fakeRun();
  await using s = await startScriptedServer({
    rules: [
      { when: { turn: 0 }, reply: ["```bash", "sleep 30 & echo $!; sleep 30", "```"] },
      { reply: "DONE" },
    ],
  });
  const cfg = run.cfg({ command_timeout_s: 1 });
  const out = await runAgent(cfg, { client: testClient(s.url), model: "m" });
  equal(out.reason, "done");
  const cmd = jsonLines(cfg.transcript).find((r) => r.type === "command")!;
  equal(cmd.exit, null);
  equal(cmd.timed_out, true);
  const orphan = Number(String(cmd.stdout).trim());
  ok(orphan > 0 && (await gone(orphan)), "the background sleep is gone");
  match(
    (s.requests[1]!.body!.messages as { content: string }[]).at(-1)!.content,
    /ran out of time and was killed/,
  );
});

Deno.test("runAgent() stops at once, killing the running command, when its signal aborts", async () => {
  await using run = await fakeRun();
  await using s = await startScriptedServer({
    rules: [{ when: { turn: 0 }, reply: ["```bash", "echo $$ > pid; sleep 30", "```"] }, { reply: "DONE" }],
  });
  const cfg = run.cfg();
  const stop = new AbortController();
  const pending = runAgent(cfg, { client: testClient(s.url), model: "m", signal: stop.signal });
  const pidFile = `${run.scope}/pid`;
  while (!(await Deno.stat(pidFile).then((st) => st.size > 0, () => false))) {
    await new Promise((r) => setTimeout(r, 10));
  }
  stop.abort();
  const out = await pending;
  equal(out.reason, "stopped");
  const pid = Number((await Deno.readTextFile(pidFile)).trim());
  ok(await gone(pid), "the command's shell is gone");
  equal(jsonLines(cfg.transcript).at(-1)!.reason, "stopped");
});

Deno.test("runAgent() ends with a clear error when its sandbox cannot start", async () => {
  await using run = await fakeRun();
  await using s = await startScriptedServer({ rules: [{ reply: ["```bash", "ls", "```"] }] });
  const cfg = run.cfg({ sandbox: ["/nonexistent/bwrap", "--"] });
  const out = await runAgent(cfg, { client: testClient(s.url), model: "m" });
  equal(out.reason, "error");
  match(out.error!, /^Cannot start the command with "\/nonexistent\/bwrap": /);
  equal(s.calls, 1);
  const cmd = jsonLines(cfg.transcript).find((r) => r.type === "command")!;
  equal(cmd.exit, null);
});

Deno.test("runAgent() records each step with its tokens, cost and the scope's fingerprint after it", async () => {
  await using run = await fakeRun();
  await using s = await startScriptedServer(loadScript("honest_n3"));
  const cfg = run.cfg();
  // A fingerprint that names the scope's files: enough to see it taken after each step's command.
  const fingerprint = (dir: string) =>
    [...Deno.readDirSync(dir)].map((e) => e.name).sort().join(",") || "empty";
  const out = await runAgent(cfg, { client: testClient(s.url), model: "m", secrets: [KEY], fingerprint });
  equal(out.reason, "done");
  const lines = jsonLines(`${run.dir}/.arrow/steps/N3/1.jsonl`);
  const steps = lines.filter((l) => "step" in l);
  deepEqual(steps.map((l) => l.step), [1, 2, 3, 4]);
  deepEqual(steps.map((l) => l.tokens), jsonLines(cfg.usage).map((u) => u.tokens));
  deepEqual(steps.map((l) => l.cost), jsonLines(cfg.usage).map((u) => u.cost));
  equal(steps.at(-1)!.fp, fingerprint(run.scope), "the last step saw the scope as the agent left it");
  ok(steps.some((l) => l.fp !== steps[0]!.fp), "the fingerprint follows the commands' writes");
  deepEqual(lines.at(-1), { end: "done", steps: 4 });
});
