/**
 * A scripted OpenAI-compatible server for tests: replays hand-written conversations (rules matched against
 * each request), streams when asked, and can answer 429 with Retry-After, 500, slowly, with malformed JSON
 * or a truncated stream. It reports usage and counts every call, so a test can prove a call was not repeated.
 *
 * A script (tests/fixtures/llm/*.json) is `{description?, rules: Rule[]}`; for each request the first rule
 * whose `when` matches and whose `times` are not used up answers. See the Rule type for the fields.
 *
 * @module
 */

/** Conditions on a request; every one given must hold. */
export interface When {
  /** Substring of the system message. */
  system?: string;
  /** Substring of the last message (whatever its role). */
  last?: string;
  /** Assistant messages already in the request: 0 for the first call of a conversation. */
  turn?: number;
  /** Exact model name. */
  model?: string;
  /** Streaming requested or not. */
  stream?: boolean;
  /** Substring of the request's Authorization header (e.g. the key a proxy put there). */
  auth?: string;
}

export interface Rule {
  when?: When;
  /** The assistant's content; an array of lines is joined with "\n" (easier to write by hand). */
  reply?: string | string[];
  /** Reported usage; default: prompt = ceil(request chars / 4), completion = ceil(reply chars / 4). */
  usage?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number; cost?: number };
  /** Report no usage at all. */
  no_usage?: boolean;
  finish_reason?: string;
  /** HTTP status (default 200); with anything but 200 the body is an OpenAI-style error. */
  status?: number;
  /** Extra response headers, e.g. {"retry-after": "1"}. */
  headers?: Record<string, string>;
  /** Raw response body sent verbatim (status 200 unless `status`). */
  body?: string;
  /** Send broken JSON (a whole body, or one streamed chunk). */
  malformed?: boolean;
  /** Stop half-way: half the content chunks and no [DONE] (streaming), half the body (not streaming). */
  truncate?: boolean;
  /** Wait this long before answering (cut short when the server closes). */
  delay_ms?: number;
  /** How many times this rule may answer (default: any number). */
  times?: number;
  /** Characters per streamed content chunk (default 8). */
  chunk?: number;
  /** Pause between streamed events (a slow generator). */
  chunk_delay_ms?: number;
}

export interface Script {
  description?: string;
  rules: Rule[];
}

export interface RecordedRequest {
  path: string;
  body: Record<string, unknown> | null;
  authorization: string | null;
  headers: Record<string, string>;
  /** Index of the rule that answered, or null when none matched. */
  rule: number | null;
}

export interface ScriptedServer extends AsyncDisposable {
  /** Base URL to give a client, ending in /v1. */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Chat requests served so far (any outcome). */
  readonly calls: number;
  /** How many times rule `i` answered. */
  hits(i: number): number;
  /** Streamed replies still being sent. */
  readonly streaming: number;
  /** Resolves once `n` chat requests have arrived. */
  waitForCalls(n: number): Promise<void>;
  close(): Promise<void>;
}

export function loadScript(name: string): Script {
  const url = new URL(`../fixtures/llm/${name}.json`, import.meta.url);
  return JSON.parse(Deno.readTextFileSync(url)) as Script;
}

type Msg = { role?: unknown; content?: unknown };
const contentOf = (
  m: Msg | undefined,
) => (typeof m?.content === "string" ? m.content : JSON.stringify(m?.content ?? ""));

function matches(w: When | undefined, body: Record<string, unknown>, auth: string): boolean {
  if (!w) return true;
  const msgs = (Array.isArray(body.messages) ? body.messages : []) as Msg[];
  if (w.system !== undefined && !msgs.some((m) => m.role === "system" && contentOf(m).includes(w.system!))) {
    return false;
  }
  if (w.last !== undefined && !contentOf(msgs.at(-1)).includes(w.last)) return false;
  if (w.turn !== undefined && msgs.filter((m) => m.role === "assistant").length !== w.turn) return false;
  if (w.model !== undefined && body.model !== w.model) return false;
  if (w.stream !== undefined && !!body.stream !== w.stream) return false;
  if (w.auth !== undefined && !auth.includes(w.auth)) return false;
  return true;
}

function usageFor(rule: Rule, body: Record<string, unknown>, reply: string) {
  const chars = JSON.stringify(body.messages ?? []).length;
  const prompt = rule.usage?.prompt_tokens ?? Math.ceil(chars / 4);
  const completion = rule.usage?.completion_tokens ?? Math.ceil(reply.length / 4);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: rule.usage?.total_tokens ?? prompt + completion,
    ...(rule.usage?.cost !== undefined ? { cost: rule.usage.cost } : {}),
  };
}

function wait(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const t = setTimeout(() => resolve(true), ms);
    signal.addEventListener("abort", () => {
      clearTimeout(t);
      resolve(false);
    }, { once: true });
  });
}

const json = (status: number, value: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(value), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });

/** Starts the server on 127.0.0.1 with a free port. */
export function startScriptedServer(script: Script): Promise<ScriptedServer> {
  const used = script.rules.map(() => 0);
  const requests: RecordedRequest[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  let calls = 0;
  let streaming = 0;
  // Shutting down ends pending delays, so a slow rule never holds the server open after a test.
  const closing = new AbortController();
  const counted = () => {
    calls++;
    for (const w of waiters.filter((w) => calls >= w.n)) w.resolve();
  };

  async function handle(req: Request): Promise<Response> {
    const path = new URL(req.url).pathname;
    if (req.method === "GET" && path.endsWith("/models")) {
      return json(200, { object: "list", data: [{ id: "scripted", object: "model" }] });
    }
    if (req.method !== "POST" || !path.endsWith("/chat/completions")) {
      return json(404, { error: { message: `scripted server: no route ${req.method} ${path}` } });
    }
    const auth = req.headers.get("authorization") ?? "";
    let body: Record<string, unknown> | null = null;
    try {
      body = await req.json();
    } catch {
      body = null;
    }
    const rec: RecordedRequest = {
      path,
      body,
      authorization: auth || null,
      headers: Object.fromEntries(req.headers),
      rule: null,
    };
    requests.push(rec);
    counted();
    if (!body) return json(400, { error: { message: "scripted server: the request body is not JSON" } });
    const i = script.rules.findIndex((r, i) =>
      (r.times === undefined || used[i]! < r.times) && matches(r.when, body!, auth)
    );
    if (i < 0) {
      const msgs = (Array.isArray(body.messages) ? body.messages : []) as Msg[];
      const turn = msgs.filter((m) => m.role === "assistant").length;
      return json(400, {
        error: {
          message: `scripted server: no rule matches turn ${turn}, last message "${
            contentOf(msgs.at(-1)).slice(0, 120)
          }"`,
        },
      });
    }
    used[i]!++;
    rec.rule = i;
    const rule = script.rules[i]!;
    if (rule.delay_ms && !(await wait(rule.delay_ms, closing.signal))) {
      return new Response(null, { status: 499 });
    }
    const headers = rule.headers ?? {};
    if (rule.status && rule.status !== 200) {
      return json(rule.status, { error: { message: `scripted ${rule.status}`, code: rule.status } }, headers);
    }
    if (rule.body !== undefined) {
      return new Response(rule.body, {
        status: 200,
        headers: { "content-type": "application/json", ...headers },
      });
    }
    const reply = Array.isArray(rule.reply) ? rule.reply.join("\n") : rule.reply ?? "";
    const usage = rule.no_usage ? undefined : usageFor(rule, body, reply);
    const model = typeof body.model === "string" ? body.model : "scripted";
    const base = { id: `chatcmpl-${calls}`, object: "chat.completion", created: 0, model };
    if (!body.stream) {
      const whole = JSON.stringify({
        ...base,
        choices: [{
          index: 0,
          message: { role: "assistant", content: reply },
          finish_reason: rule.finish_reason ?? "stop",
        }],
        ...(usage ? { usage } : {}),
      });
      const text = rule.malformed
        ? whole.slice(0, -7) + "}{"
        : rule.truncate
        ? whole.slice(0, whole.length >> 1)
        : whole;
      return new Response(text, { status: 200, headers: { "content-type": "application/json", ...headers } });
    }
    const wantUsage =
      (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
    const size = rule.chunk ?? 8;
    const pieces: string[] = [];
    for (let k = 0; k < reply.length; k += size) pieces.push(reply.slice(k, k + size));
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices, ...extra })}\n\n`;
    const events: string[] = [
      chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]),
    ];
    for (const p of pieces) events.push(chunk([{ index: 0, delta: { content: p }, finish_reason: null }]));
    if (rule.truncate) {
      events.length = Math.max(1, Math.ceil(events.length / 2));
    } else {
      if (rule.malformed) events.push('data: {"choices": [{"delta": {"content": "x"\n\n');
      events.push(chunk([{ index: 0, delta: {}, finish_reason: rule.finish_reason ?? "stop" }]));
      if (usage && wantUsage) events.push(chunk([], { usage }));
      events.push("data: [DONE]\n\n");
    }
    const enc = new TextEncoder();
    const queue = [": scripted keep-alive\n\n", ...events];
    streaming++;
    let ended = false;
    let sent = 0;
    const end = () => {
      if (!ended) streaming--;
      ended = true;
    };
    const stream = new ReadableStream<Uint8Array>({
      async pull(c) {
        const next = queue.shift();
        if (next === undefined) {
          end();
          c.close();
          return;
        }
        // The keep-alive and the first chunk go at once; every later event waits.
        const delay = sent++ >= 2 ? rule.chunk_delay_ms ?? 0 : 0;
        if (delay && !(await wait(delay, closing.signal))) {
          end();
          c.close();
          return;
        }
        c.enqueue(enc.encode(next));
      },
      cancel: end,
    });
    return new Response(stream, {
      status: 200,
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache", ...headers },
    });
  }

  return new Promise((resolve) => {
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      onListen({ port }) {
        const s: ScriptedServer = {
          url: `http://127.0.0.1:${port}/v1`,
          port,
          requests,
          get calls() {
            return calls;
          },
          get streaming() {
            return streaming;
          },
          hits: (i) => used[i] ?? 0,
          waitForCalls: (n) =>
            calls >= n ? Promise.resolve() : new Promise((r) => waiters.push({ n, resolve: r })),
          close: () => {
            closing.abort();
            return server.shutdown();
          },
          [Symbol.asyncDispose]: () => s.close(),
        };
        resolve(s);
      },
    }, handle);
  });
}
