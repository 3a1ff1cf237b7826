/**
 * The proxy with real HTTP clients against the scripted upstream: attribution by key or header, the real
 * key added upstream, every call recorded (transcript and usage line), the token budget enforced with a
 * 429, streaming passed through as it arrives, an unreachable upstream reported.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { LlmClient } from "../../src/llm/client.ts";
import { LlmError } from "../../src/llm/errors.ts";
import { startProxy } from "../../src/llm/proxy.ts";
import { jsonLines, KEY } from "./helpers.ts";
import { type Script, startScriptedServer } from "./scripted_server.ts";

const PLAN = `question: Q?
protocol: { version: p1, metric: dev_r2, direction: maximize }
nodes:
  - { id: N3, kind: fast, role: baseline, budget: { tokens: 3000 } }
  - { id: N4, kind: fast, role: train }
edges:
  - { from: N3, to: N4, kind: artifact }
`;

async function runDir(): Promise<{ dir: string } & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "arrow-proxy-" });
  await Deno.writeTextFile(`${dir}/plan.yaml`, PLAN);
  return { dir, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

const chat = (model = "m") => ({ model, messages: [{ role: "user" as const, content: "hello" }] });

async function setup(script: Script) {
  const run = await runDir();
  const upstream = await startScriptedServer(script);
  const proxy = await startProxy({ runDir: run.dir, upstream: upstream.url, apiKey: KEY, port: 0 });
  const client = (key: string, headers: Record<string, string> = {}) =>
    new LlmClient({ baseUrl: proxy.url, apiKey: key, maxRetries: 0, headers });
  return {
    run,
    upstream,
    proxy,
    client,
    async [Symbol.asyncDispose]() {
      await proxy.close();
      await upstream.close();
      await run[Symbol.asyncDispose]();
    },
  };
}

Deno.test("proxy attributes a call by its arrow:<node> key, adds the real key upstream and records it", async () => {
  await using t = await setup({
    rules: [{ reply: "hi from upstream", usage: { prompt_tokens: 7, completion_tokens: 4, cost: 0.01 } }],
  });
  const r = await t.client("arrow:N3").chat(chat("gpt-x"));
  equal(r.content, "hi from upstream");
  deepEqual(r.usage, { prompt_tokens: 7, completion_tokens: 4, total_tokens: 11, cost: 0.01 });
  equal(t.upstream.requests[0]!.authorization, `Bearer ${KEY}`);
  equal(t.upstream.requests[0]!.path, "/v1/chat/completions");
  const usage = jsonLines(`${t.run.dir}/.arrow/usage/N3.jsonl`);
  equal(usage.length, 1);
  match(String(usage[0]!.call), /^N3:proxy:/);
  deepEqual([usage[0]!.tokens, usage[0]!.cost, usage[0]!.model, usage[0]!.via], [11, 0.01, "gpt-x", "proxy"]);
  const tr = jsonLines(`${t.run.dir}/logs/agent/N3.jsonl`);
  equal(tr.length, 1);
  deepEqual(tr[0]!.request, { n_messages: 1, from: 0, messages: [{ role: "user", content: "hello" }] });
  deepEqual(tr[0]!.response, { content: "hi from upstream", finish_reason: "stop" });
  equal(tr[0]!.status, 200);
  ok(!Deno.readTextFileSync(`${t.run.dir}/logs/agent/N3.jsonl`).includes(KEY));
});

Deno.test("proxy attributes by X-Arrow-Node, and refuses calls it cannot attribute or for unknown nodes", async () => {
  await using t = await setup({ rules: [{ reply: "ok" }] });
  await t.client("anything", { "x-arrow-node": "N4" }).chat(chat());
  equal(jsonLines(`${t.run.dir}/.arrow/usage/N4.jsonl`).length, 1);
  const none = await fetch(`${t.proxy.url}/chat/completions`, {
    method: "POST",
    body: JSON.stringify(chat()),
  });
  equal(none.status, 401);
  match(
    (await none.json()).error.message,
    /use the API key "arrow:<node>" or the header "X-Arrow-Node: <node>"/,
  );
  const unknown = await fetch(`${t.proxy.url}/chat/completions`, {
    method: "POST",
    headers: { authorization: "Bearer arrow:N9" },
    body: JSON.stringify(chat()),
  });
  equal(unknown.status, 403);
  match((await unknown.json()).error.message, /node "N9": it is not in the run's plan \(nodes: N3, N4\)/);
  equal(t.upstream.calls, 1);
});

Deno.test("proxy answers 429 with a clear body once the node's token budget is spent", async () => {
  await using t = await setup({
    rules: [{ reply: "ok", usage: { prompt_tokens: 900, completion_tokens: 100 } }],
  });
  // Usage the engine or an agent worker already recorded for N3 counts too (a repeated call id once).
  const prior = JSON.stringify({ call: "N3:1:1", tokens: 500, via: "worker" });
  Deno.mkdirSync(`${t.run.dir}/.arrow/usage`, { recursive: true });
  Deno.writeTextFileSync(`${t.run.dir}/.arrow/usage/N3.jsonl`, `${prior}\n${prior}\n`);
  const c = t.client("arrow:N3");
  await c.chat(chat());
  await c.chat(chat());
  await c.chat(chat()); // 500 + 1000 + 1000 = 2500 < 3000: allowed, ends at 3500
  let refused: LlmError | null = null;
  try {
    await c.chat(chat());
  } catch (e) {
    refused = e as LlmError;
  }
  equal(refused?.status, 429);
  match(
    refused!.message,
    /Token budget of node N3 is spent: 3500 of 3000 tokens used \(budget\.tokens in plan\.yaml\)/,
  );
  equal(t.upstream.calls, 3);
  const raw = await fetch(`${t.proxy.url}/chat/completions`, {
    method: "POST",
    headers: { "x-arrow-node": "N3" },
    body: JSON.stringify(chat()),
  });
  deepEqual((await raw.json()).error, {
    message: "Token budget of node N3 is spent: 3500 of 3000 tokens used (budget.tokens in plan.yaml); " +
      "Arrow refuses further LLM calls for this node",
    type: "arrow_budget_exhausted",
    code: "arrow_budget_exhausted",
    node: "N3",
    used: 3500,
    budget: 3000,
  });
  // N4 has no budget: it is never refused.
  await t.client("arrow:N4").chat(chat());
  equal(t.upstream.calls, 4);
  const refusals = jsonLines(`${t.run.dir}/logs/agent/N3.jsonl`).filter((r) => r.status === 429);
  equal(refusals.length, 2);
});

Deno.test("proxy streams a reply through as it arrives and records its usage", async () => {
  const reply = "streamed through the proxy, chunk by chunk";
  await using t = await setup({
    rules: [{ reply, chunk: 6, chunk_delay_ms: 40, usage: { prompt_tokens: 30, completion_tokens: 9 } }],
  });
  // A raw client that does not ask for usage: the proxy asks upstream for it.
  const res = await fetch(`${t.proxy.url}/chat/completions`, {
    method: "POST",
    headers: { authorization: "Bearer arrow:N4", "content-type": "application/json" },
    body: JSON.stringify({ ...chat(), stream: true }),
  });
  equal(res.headers.get("content-type"), "text/event-stream");
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let text = "";
  let sawContentWhileUpstreamStreamed = false;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += dec.decode(value, { stream: true });
    if (text.includes('"content":"stream"') && t.upstream.streaming > 0) {
      sawContentWhileUpstreamStreamed = true;
    }
  }
  ok(sawContentWhileUpstreamStreamed, "the first content arrived before the upstream finished");
  deepEqual(t.upstream.requests[0]!.body!.stream_options, { include_usage: true });
  match(text, /"usage":\{"prompt_tokens":30,"completion_tokens":9,"total_tokens":39\}/);
  match(text, /data: \[DONE\]/);
  const usage = jsonLines(`${t.run.dir}/.arrow/usage/N4.jsonl`);
  deepEqual(usage.map((u) => u.tokens), [39]);
  const tr = jsonLines(`${t.run.dir}/logs/agent/N4.jsonl`);
  deepEqual(tr[0]!.response, { content: reply, finish_reason: "stop" });
  equal(tr[0]!.error, null);
  // Our own client through the proxy gets the same reply.
  const again = await t.client("arrow:N4").chat({ ...chat(), stream: true });
  equal(again.content, reply);
  equal(again.usage!.total_tokens, 39);
});

Deno.test("proxy records only the messages a call adds to the node's conversation", async () => {
  await using t = await setup({ rules: [{ reply: "first", times: 1 }, { reply: "second" }] });
  const c = t.client("arrow:N4");
  const messages = [{ role: "system" as const, content: "sys" }, { role: "user" as const, content: "q1" }];
  await c.chat({ model: "m", messages });
  await c.chat({
    model: "m",
    messages: [...messages, { role: "assistant", content: "first" }, { role: "user", content: "q2" }],
  });
  const tr = jsonLines(`${t.run.dir}/logs/agent/N4.jsonl`);
  deepEqual(tr.map((r) => (r.request as { from: number }).from), [0, 2]);
  deepEqual((tr[1]!.request as { messages: unknown[] }).messages, [
    { role: "assistant", content: "first" },
    { role: "user", content: "q2" },
  ]);
});

Deno.test("proxy reports an unreachable upstream as 502 with a JSON error", async () => {
  await using run = await runDir();
  await using proxy = await startProxy({
    runDir: run.dir,
    upstream: "http://127.0.0.1:9/v1",
    apiKey: KEY,
    port: 0,
  });
  const res = await fetch(`${proxy.url}/chat/completions`, {
    method: "POST",
    headers: { authorization: "Bearer arrow:N3" },
    body: JSON.stringify(chat()),
  });
  equal(res.status, 502);
  match((await res.json()).error.message, /^Cannot reach the upstream http:\/\/127\.0\.0\.1:9\/v1: /);
  equal(jsonLines(`${run.dir}/logs/agent/N3.jsonl`)[0]!.status, 502);
  deepEqual(jsonLines(`${run.dir}/.arrow/usage/N3.jsonl`), []);
});

Deno.test("arrow proxy serves a run until interrupted", async () => {
  await using run = await runDir();
  await using upstream = await startScriptedServer({ rules: [{ reply: "via cli" }] });
  const p = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--no-prompt",
      new URL("../../src/cli/main.ts", import.meta.url).pathname,
      "proxy",
      "--run",
      run.dir,
      "--port",
      "0",
      "--upstream",
      upstream.url,
    ],
    env: { ARROW_LLM_API_KEY: KEY, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines = p.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!/\n/.test(out)) out += (await lines.read()).value ?? "";
  const url = out.match(/^arrow proxy: (http:\/\/127\.0\.0\.1:\d+\/v1) → /)?.[1];
  ok(url, out);
  const r = await new LlmClient({ baseUrl: url, apiKey: "arrow:N3", maxRetries: 0 }).chat(chat());
  equal(r.content, "via cli");
  p.kill("SIGINT");
  for (;;) {
    const { value, done } = await lines.read();
    if (done) break;
    out += value;
  }
  const status = await p.status;
  await p.stderr.cancel();
  equal(status.code, 0);
  match(out, /arrow proxy: stopped/);
  equal(jsonLines(`${run.dir}/.arrow/usage/N3.jsonl`).length, 1);
});

Deno.test("proxy records a streamed call the client abandons half-way", async () => {
  await using t = await setup({
    rules: [{ reply: "a slow reply the client gives up on", chunk: 4, chunk_delay_ms: 30 }],
  });
  const res = await fetch(`${t.proxy.url}/chat/completions`, {
    method: "POST",
    headers: { authorization: "Bearer arrow:N4" },
    body: JSON.stringify({ ...chat(), stream: true }),
  });
  const reader = res.body!.getReader();
  let text = "";
  while (!text.includes('"content":"a sl"')) text += new TextDecoder().decode((await reader.read()).value);
  await reader.cancel();
  const path = `${t.run.dir}/logs/agent/N4.jsonl`;
  while (!jsonLines(path).length) await new Promise((r) => setTimeout(r, 10));
  const rec = jsonLines(path)[0]!;
  match(String(rec.error), /^stream cut before its end/);
  ok(String((rec.response as { content: string }).content).startsWith("a sl"));
  while (t.upstream.streaming > 0) await new Promise((r) => setTimeout(r, 10));
});

Deno.test("proxy passes a truncated upstream stream through as it is and records it as ended early", async () => {
  await using t = await setup({ rules: [{ reply: "cut in the middle of the reply", truncate: true }] });
  let err: LlmError | null = null;
  try {
    await t.client("arrow:N4").chat({ ...chat(), stream: true });
  } catch (e) {
    err = e as LlmError;
  }
  equal(err?.kind, "truncated");
  const rec = jsonLines(`${t.run.dir}/logs/agent/N4.jsonl`)[0]!;
  equal(rec.error, "stream ended early");
  deepEqual(jsonLines(`${t.run.dir}/.arrow/usage/N4.jsonl`).map((u) => u.tokens), [0]);
});
