/**
 * The OpenAI-compatible client against the scripted server: streaming, usage, retries on 429 and 5xx,
 * timeouts, malformed and truncated replies, cancellation.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { LlmClient } from "../../src/llm/client.ts";
import { LlmError } from "../../src/llm/errors.ts";
import type { ChatRequest } from "../../src/llm/types.ts";
import { startScriptedServer } from "./scripted_server.ts";

const REQ: ChatRequest = { model: "m1", messages: [{ role: "user", content: "hello" }] };

/** A client whose waits between attempts are recorded instead of slept. */
function client(url: string, extra: Partial<ConstructorParameters<typeof LlmClient>[0]> = {}) {
  const waits: number[] = [];
  const c = new LlmClient({
    baseUrl: url,
    apiKey: "sk-test-0123456789",
    seed: "N3:1",
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
    ...extra,
  });
  return { c, waits };
}

async function failure(p: Promise<unknown>): Promise<LlmError> {
  try {
    await p;
  } catch (e) {
    ok(e instanceof LlmError, `expected an LlmError, got ${e}`);
    return e;
  }
  throw new Error("expected the call to fail");
}

Deno.test("LlmClient.chat() returns content and the API's usage, cost included, and sends the key", async () => {
  await using s = await startScriptedServer({
    rules: [{ reply: "hi there", usage: { prompt_tokens: 11, completion_tokens: 3, cost: 0.00042 } }],
  });
  const r = await client(s.url).c.chat(REQ);
  equal(r.content, "hi there");
  deepEqual(r.usage, { prompt_tokens: 11, completion_tokens: 3, total_tokens: 14, cost: 0.00042 });
  equal(r.finish_reason, "stop");
  equal(r.attempts, 1);
  equal(s.requests[0]!.authorization, "Bearer sk-test-0123456789");
  equal(s.requests[0]!.body!.stream, false);
});

Deno.test("LlmClient.chat() streams: pieces arrive through onDelta, usage comes from the final chunk", async () => {
  const reply = "```bash\nls -la ckpt/\n```\nListing the checkpoints first.";
  await using s = await startScriptedServer({
    rules: [{ reply, chunk: 5, usage: { prompt_tokens: 40, completion_tokens: 9 } }],
  });
  const pieces: string[] = [];
  const r = await client(s.url).c.chat({ ...REQ, stream: true }, { onDelta: (t) => pieces.push(t) });
  equal(r.content, reply);
  equal(pieces.length, Math.ceil(reply.length / 5));
  deepEqual(r.usage, { prompt_tokens: 40, completion_tokens: 9, total_tokens: 49, cost: null });
  deepEqual(s.requests[0]!.body!.stream_options, { include_usage: true });
});

Deno.test("LlmClient.chat() waits what Retry-After asks after a 429, then succeeds", async () => {
  await using s = await startScriptedServer({
    rules: [{ status: 429, headers: { "retry-after": "2" }, times: 1 }, { reply: "ok" }],
  });
  const { c, waits } = client(s.url);
  const r = await c.chat(REQ);
  equal(r.content, "ok");
  equal(r.attempts, 2);
  deepEqual(waits, [2000]);
  equal(s.calls, 2);
});

Deno.test("LlmClient.chat() gives up on repeated 500s with a clear error after its retries", async () => {
  await using s = await startScriptedServer({ rules: [{ status: 500 }] });
  const { c, waits } = client(s.url, { maxRetries: 3 });
  const e = await failure(c.chat(REQ));
  equal(e.kind, "http");
  equal(e.status, 500);
  equal(e.attempts, 4);
  match(e.message, /HTTP 500: scripted 500 \(gave up after 4 attempts\)/);
  equal(s.calls, 4);
  equal(waits.length, 3);
  // Exponential with equal jitter: retry k waits within [base·2^k / 2, base·2^k].
  waits.forEach((w, k) => ok(w >= 250 * 2 ** k && w <= 500 * 2 ** k, `wait ${k} = ${w}`));
  // Seeded: the same node waits the same way on every run.
  await using s2 = await startScriptedServer({ rules: [{ status: 503 }] });
  const again = client(s2.url, { maxRetries: 3 });
  await failure(again.c.chat(REQ));
  deepEqual(again.waits, waits);
});

Deno.test("LlmClient.chat() does not retry a 401 and shows the provider's message", async () => {
  await using s = await startScriptedServer({ rules: [{ status: 401 }] });
  const e = await failure(client(s.url).c.chat(REQ));
  equal(e.retryable, false);
  equal(s.calls, 1);
  match(
    e.message,
    /^Cannot call the LLM at http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions: HTTP 401: scripted 401$/,
  );
});

Deno.test("LlmClient.chat() times out a slow reply, retrying it first", async () => {
  await using s = await startScriptedServer({ rules: [{ reply: "late", delay_ms: 10_000 }] });
  const e = await failure(client(s.url, { timeoutMs: 50, maxRetries: 1 }).c.chat(REQ));
  equal(e.kind, "timeout");
  equal(e.attempts, 2);
  match(e.message, /no complete reply within 50 ms/);
});

Deno.test("LlmClient.chat() reports malformed JSON, whole or streamed, without retrying", async () => {
  await using s = await startScriptedServer({ rules: [{ reply: "x", malformed: true }] });
  const whole = await failure(client(s.url).c.chat(REQ));
  equal(whole.kind, "malformed");
  match(whole.message, /malformed JSON in the response body/);
  const streamed = await failure(client(s.url).c.chat({ ...REQ, stream: true }));
  equal(streamed.kind, "malformed");
  match(streamed.message, /malformed JSON in a streamed chunk/);
  equal(s.calls, 2);
});

Deno.test("LlmClient.chat() reports a truncated stream and a truncated body", async () => {
  await using s = await startScriptedServer({
    rules: [{ reply: "a long reply cut in the middle", truncate: true }],
  });
  const e = await failure(client(s.url).c.chat({ ...REQ, stream: true }));
  equal(e.kind, "truncated");
  match(e.message, /the stream ended before the reply was finished/);
  const body = await failure(client(s.url).c.chat(REQ));
  equal(body.kind, "malformed");
});

Deno.test("LlmClient.chat() accepts a 200 without usage as unknown usage, and reports a 200 error body", async () => {
  await using s = await startScriptedServer({
    rules: [
      { reply: "no usage here", no_usage: true, times: 1 },
      { body: '{"error": {"message": "Provider returned error", "code": 400}}' },
    ],
  });
  const r = await client(s.url).c.chat(REQ);
  equal(r.usage, null);
  const e = await failure(client(s.url).c.chat(REQ));
  equal(e.kind, "api");
  match(e.message, /the API reported an error: Provider returned error/);
});

Deno.test("LlmClient.chat() stops at once when its signal aborts, mid-reply or while waiting to retry", async () => {
  await using s = await startScriptedServer({ rules: [{ reply: "never", delay_ms: 10_000 }] });
  const stop = new AbortController();
  const pending = client(s.url).c.chat(REQ, { signal: stop.signal });
  await s.waitForCalls(1);
  stop.abort();
  const e = await failure(pending);
  equal(e.kind, "aborted");
  match(e.message, /cancelled \(the node was stopped\)/);

  await using s2 = await startScriptedServer({ rules: [{ status: 429, headers: { "retry-after": "30" } }] });
  const stop2 = new AbortController();
  const real = new LlmClient({ baseUrl: s2.url, apiKey: "k" });
  const p2 = real.chat(REQ, { signal: stop2.signal });
  await s2.waitForCalls(1);
  stop2.abort();
  equal((await failure(p2)).kind, "aborted");
  equal(s2.calls, 1);
});

Deno.test("LlmClient.chat() refuses a Retry-After longer than it is willing to wait", async () => {
  await using s = await startScriptedServer({ rules: [{ status: 429, headers: { "retry-after": "3600" } }] });
  const { c, waits } = client(s.url);
  const e = await failure(c.chat(REQ));
  match(e.message, /asks to wait 3600 s, more than the 120 s Arrow waits/);
  deepEqual(waits, []);
});

Deno.test("LlmClient.chat() names an unreachable endpoint", async () => {
  const { c } = client("http://127.0.0.1:9/v1", { maxRetries: 1 });
  const e = await failure(c.chat(REQ));
  equal(e.kind, "network");
  match(e.message, /Cannot call the LLM at http:\/\/127\.0\.0\.1:9\/v1\/chat\/completions/);
});
