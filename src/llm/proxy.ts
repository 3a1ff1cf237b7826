/**
 * The proxy form of the overwatch: an OpenAI-compatible pass-through any agent framework can point its base
 * URL at. Each call is attributed to a node (API key `arrow:<node>` or header X-Arrow-Node), refused with
 * 429 once the node's token budget is spent, forwarded with the real key, streamed back byte for byte, and
 * recorded — transcript under logs/agent/, usage line under .arrow/usage/ where the engine reads it.
 *
 * @module
 */
import { LlmError } from "./errors.ts";
import { newMessages, type ProxyNode, proxyNodes, recordedMessage } from "./proxy_run.ts";
import { boundedText } from "./reply_body.ts";
import { SseTap } from "./sse_tap.ts";
import { clip, MAX_FIELD } from "./transcript.ts";
import { readUsage, type Usage } from "./types.ts";
import { appendUsage, usageLine } from "./usage.ts";

/** Largest request or whole (non-streamed) reply the proxy handles, in bytes. */
export const MAX_BODY = 32 << 20;

export interface ProxyOptions {
  runDir: string;
  /** Upstream base URL, e.g. https://openrouter.ai/api/v1. */
  upstream: string;
  /** The real key, sent upstream in place of the caller's. */
  apiKey: string;
  fetch?: typeof fetch;
  now?: () => string;
}

const HOP = new Set([
  "authorization",
  "x-arrow-node",
  "host",
  "content-length",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "accept-encoding",
  "upgrade",
  "proxy-authorization",
]);

function errorResponse(status: number, message: string, type: string, extra: Record<string, unknown> = {}) {
  return new Response(JSON.stringify({ error: { message, type, code: type, ...extra } }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** The node a request is for: X-Arrow-Node, else a bearer key of the form `arrow:<node>`. */
export function attribute(req: Request): string | null {
  const header = req.headers.get("x-arrow-node")?.trim();
  if (header) return header;
  const auth = req.headers.get("authorization")?.match(/^Bearer\s+arrow:(\S+)$/i);
  return auth ? auth[1]! : null;
}

/** A request handler for the run; throws LlmConfigError when the run's plan cannot be read. */
export function proxyHandler(o: ProxyOptions): (req: Request) => Promise<Response> {
  const nodes = proxyNodes(o.runDir, [o.apiKey]);
  const upstream = o.upstream.replace(/\/+$/, "");
  const doFetch = o.fetch ?? fetch;
  const now = o.now ?? (() => new Date().toISOString());
  // Unique across proxy restarts: a usage line's call id is never reused.
  const epoch = Date.now().toString(36);
  let seq = 0;

  return async (req: Request): Promise<Response> => {
    const started = performance.now();
    const url = new URL(req.url);
    const target = `${upstream}${url.pathname.replace(/^\/v1(?=\/|$)/, "")}${url.search}`;
    const id = attribute(req);
    if (!id) {
      return errorResponse(
        401,
        'Cannot attribute this call to a node: use the API key "arrow:<node>" or the header "X-Arrow-Node: <node>"',
        "arrow_unattributed",
      );
    }
    const node = nodes.get(id);
    if (!node) {
      const known = [...nodes.keys()].join(", ");
      return errorResponse(
        403,
        `Cannot proxy for node "${id}": it is not in the run's plan (nodes: ${known})`,
        "arrow_unknown_node",
      );
    }
    const call = `${id}:proxy:${epoch}.${++seq}`;
    const billable = req.method !== "GET" && req.method !== "HEAD";
    let body: string | null = null;
    let parsed: Record<string, unknown> | null = null;
    if (billable) {
      body = await boundedText(new Response(req.body), MAX_BODY + 1);
      if (body.length > MAX_BODY) {
        return errorResponse(413, `Cannot proxy: request larger than ${MAX_BODY} bytes`, "arrow_too_large");
      }
      try {
        const j = JSON.parse(body);
        if (j && typeof j === "object" && !Array.isArray(j)) parsed = j;
      } catch {
        parsed = null;
      }
      // Streamed replies carry usage only when asked: the budget depends on it.
      if (parsed?.stream === true && parsed.stream_options === undefined) {
        parsed.stream_options = { include_usage: true };
        body = JSON.stringify(parsed);
      }
    }
    if (billable && node.budget !== null) {
      const used = node.ledger.tokens();
      if (used >= node.budget) {
        record(node, call, parsed, 429, "token budget spent", null, 0, now());
        return errorResponse(
          429,
          `Token budget of node ${id} is spent: ${used} of ${node.budget} tokens used (budget.tokens in plan.yaml); ` +
            "Arrow refuses further LLM calls for this node",
          "arrow_budget_exhausted",
          { node: id, used, budget: node.budget },
        );
      }
    }
    const headers = new Headers();
    for (const [k, v] of req.headers) if (!HOP.has(k.toLowerCase())) headers.set(k, v);
    headers.set("authorization", `Bearer ${o.apiKey}`);
    headers.set("accept-encoding", "identity");
    let res: Response;
    try {
      res = await doFetch(target, { method: req.method, headers, body });
    } catch (e) {
      const msg = `Cannot reach the upstream ${upstream}: ${(e as Error).message}`;
      if (billable) {
        record(node, call, parsed, 502, msg, null, Math.round(performance.now() - started), now());
      }
      return errorResponse(502, msg, "arrow_upstream_unreachable");
    }
    const out = new Headers();
    for (const [k, v] of res.headers) {
      if (!["content-length", "content-encoding", "transfer-encoding", "connection"].includes(k)) {
        out.set(k, v);
      }
    }
    if (!billable) return new Response(res.body, { status: res.status, headers: out });
    const model = typeof parsed?.model === "string" ? parsed.model : "";
    const finish = (
      content: string | null,
      usage: Usage | null,
      error: string | null,
      fin: string | null,
    ) => {
      const latency = Math.round(performance.now() - started);
      record(
        node,
        call,
        parsed,
        res.status,
        error,
        content === null ? null : { content, finish_reason: fin },
        latency,
        now(),
        usage,
      );
      if (res.ok) appendUsage(node.ledger.path, usageLine(call, usage, model, latency, "proxy"));
    };
    if ((res.headers.get("content-type") ?? "").includes("text/event-stream") && res.body) {
      const tap = new SseTap(MAX_FIELD);
      let settled = false;
      const settle = (error: string | null) => {
        if (settled) return;
        settled = true;
        tap.end();
        finish(
          tap.content,
          tap.usage,
          error ?? (tap.done || tap.finish ? null : "stream ended early"),
          tap.finish,
        );
      };
      const stream = res.body.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, c) {
            c.enqueue(chunk);
            tap.push(chunk);
          },
          flush() {
            settle(null);
          },
          // Runs when the client goes away (readable cancelled) or the upstream breaks (writable aborted).
          cancel(reason: unknown) {
            settle(`stream cut before its end${reason ? `: ${String(reason).slice(0, 200)}` : ""}`);
          },
          // `cancel` is in the Streams standard and in Deno, not yet in TypeScript's Transformer type.
        } as Transformer<Uint8Array, Uint8Array>),
      );
      return new Response(stream, { status: res.status, headers: out });
    }
    let text: string;
    try {
      text = await boundedText(res, MAX_BODY + 1);
    } catch (e) {
      finish(null, null, `upstream body broke: ${(e as Error).message}`, null);
      return errorResponse(
        502,
        `Cannot read the upstream reply: ${(e as Error).message}`,
        "arrow_upstream_broken",
      );
    }
    if (text.length > MAX_BODY) {
      finish(null, null, "reply too large", null);
      return errorResponse(
        502,
        `Cannot proxy: upstream reply larger than ${MAX_BODY} bytes`,
        "arrow_too_large",
      );
    }
    const reply = readWhole(text);
    finish(reply.content, reply.usage, res.ok ? null : clip(text, 2000), reply.finish);
    return new Response(text, { status: res.status, headers: out });
  };
}

/** Content, finish reason and usage of a whole JSON reply (chat or completions), or nulls. */
function readWhole(text: string): { content: string | null; finish: string | null; usage: Usage | null } {
  try {
    const j = JSON.parse(text) as Record<string, unknown>;
    const choice = Array.isArray(j.choices) ? (j.choices[0] ?? {}) as Record<string, unknown> : {};
    const msg = (choice.message ?? {}) as Record<string, unknown>;
    const content = typeof msg.content === "string"
      ? msg.content
      : typeof choice.text === "string"
      ? choice.text
      : msg.tool_calls !== undefined
      ? `[tool_calls] ${JSON.stringify(msg.tool_calls)}`
      : null;
    const finish = typeof choice.finish_reason === "string" ? choice.finish_reason : null;
    return { content, finish, usage: readUsage(j.usage) };
  } catch {
    return { content: null, finish: null, usage: null };
  }
}

function record(
  node: ProxyNode,
  call: string,
  body: Record<string, unknown> | null,
  status: number,
  error: string | null,
  response: { content: string; finish_reason: string | null } | null,
  latency: number,
  t: string,
  usage: Usage | null = null,
): void {
  const messages = Array.isArray(body?.messages) ? (body!.messages as unknown[]).map(recordedMessage) : [];
  node.transcript.append({
    type: "call",
    call,
    node: node.id,
    attempt: null,
    step: null,
    via: "proxy",
    model: typeof body?.model === "string" ? body.model : "",
    request: newMessages(node, messages),
    response,
    status,
    error,
    usage,
    latency_ms: latency,
    attempts: 1,
    t,
  });
}

export interface ProxyServer extends AsyncDisposable {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Serves the proxy on `hostname:port` (port 0 picks a free one). */
export function startProxy(o: ProxyOptions & { port: number; hostname?: string }): Promise<ProxyServer> {
  const handler = proxyHandler(o);
  const hostname = o.hostname ?? "127.0.0.1";
  return new Promise((resolve, reject) => {
    try {
      const server = Deno.serve({
        hostname,
        port: o.port,
        onListen({ port }) {
          const close = () => server.shutdown();
          resolve({ url: `http://${hostname}:${port}/v1`, port, close, [Symbol.asyncDispose]: close });
        },
        onError(e) {
          const msg = e instanceof LlmError ? e.message : `proxy error: ${(e as Error).message}`;
          return errorResponse(500, msg, "arrow_proxy_error");
        },
      }, handler);
    } catch (e) {
      reject(e);
    }
  });
}
