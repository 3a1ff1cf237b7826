/**
 * An OpenAI-compatible chat-completions client over `fetch`: streaming or not, a timeout per attempt,
 * retries with seeded exponential backoff on 429, 408 and 5xx (honouring Retry-After), cancellation through
 * an AbortSignal, and usage taken only from the API's own `usage` fields.
 *
 * @module
 */
import {
  backoffMs,
  type BackoffPolicy,
  DEFAULT_BACKOFF,
  mulberry32,
  parseRetryAfter,
  seedOf,
  sleep,
} from "./backoff.ts";
import { LlmError } from "./errors.ts";
import { boundedText, readReply } from "./reply_body.ts";
import type { ChatRequest, ChatResult } from "./types.ts";

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs?: number;
  maxRetries?: number;
  /** Seeds the backoff jitter (e.g. "N3:1"), so the same node waits the same way on every run. */
  seed?: string;
  backoff?: BackoffPolicy;
  /** A Retry-After longer than this fails the call instead of stalling the node (default 120 s). */
  maxRetryAfterMs?: number;
  /** Largest reply body accepted, in bytes (default 8 MiB). */
  maxReplyBytes?: number;
  /** Injected for tests: how to wait between attempts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  fetch?: typeof fetch;
  /** Extra request headers (never logged). */
  headers?: Record<string, string>;
}

export interface CallOptions {
  /** Aborts the call (the node was stopped); no retry follows. */
  signal?: AbortSignal;
  /** Called with each streamed piece of content. */
  onDelta?: (text: string) => void;
}

/** Anything that answers chat requests: the client, or a stand-in in tests. */
export interface Chat {
  chat(req: ChatRequest, opts?: CallOptions): Promise<ChatResult>;
}

const RETRYABLE_STATUS = (s: number) => s === 429 || s === 408 || s >= 500;

export class LlmClient implements Chat {
  readonly #o: Required<Omit<ClientOptions, "seed" | "headers">> & { headers: Record<string, string> };
  readonly #rand: () => number;

  constructor(opts: ClientOptions) {
    this.#o = {
      baseUrl: opts.baseUrl.replace(/\/+$/, ""),
      apiKey: opts.apiKey,
      timeoutMs: opts.timeoutMs ?? 120_000,
      maxRetries: opts.maxRetries ?? 4,
      backoff: opts.backoff ?? DEFAULT_BACKOFF,
      maxRetryAfterMs: opts.maxRetryAfterMs ?? 120_000,
      maxReplyBytes: opts.maxReplyBytes ?? 8 << 20,
      sleep: opts.sleep ?? sleep,
      fetch: opts.fetch ?? fetch,
      headers: opts.headers ?? {},
    };
    this.#rand = mulberry32(seedOf(opts.seed ?? "arrow"));
  }

  get endpoint(): string {
    return `${this.#o.baseUrl}/chat/completions`;
  }

  /** One chat completion, retried on transient failures; throws LlmError with the attempts made. */
  async chat(req: ChatRequest, opts: CallOptions = {}): Promise<ChatResult> {
    const started = performance.now();
    for (let attempt = 1;; attempt++) {
      if (opts.signal?.aborted) throw withAttempts(aborted(), attempt - 1);
      try {
        const r = await this.#once(req, opts);
        return { ...r, latency_ms: Math.round(performance.now() - started), attempts: attempt };
      } catch (e) {
        const err = e instanceof LlmError
          ? e
          : new LlmError(`Cannot call the LLM: ${String(e)}`, "network", true);
        if (!err.retryable || attempt > this.#o.maxRetries) {
          const why = err.retryable && attempt > 1 ? ` (gave up after ${attempt} attempts)` : "";
          throw withAttempts(err, attempt, why);
        }
        let wait = err.retryAfterMs ?? backoffMs(attempt - 1, this.#rand, this.#o.backoff);
        if (err.retryAfterMs !== null && err.retryAfterMs > this.#o.maxRetryAfterMs) {
          throw withAttempts(
            new LlmError(
              `${err.message}; the server asks to wait ${
                Math.round(err.retryAfterMs / 1000)
              } s, more than the ` +
                `${Math.round(this.#o.maxRetryAfterMs / 1000)} s Arrow waits`,
              err.kind,
              false,
              err.status,
            ),
            attempt,
          );
        }
        wait = Math.max(0, wait);
        try {
          await this.#o.sleep(wait, opts.signal);
        } catch {
          throw withAttempts(aborted(), attempt);
        }
      }
    }
  }

  async #once(req: ChatRequest, opts: CallOptions): Promise<Omit<ChatResult, "latency_ms" | "attempts">> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.#o.timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout.signal]) : timeout.signal;
    const body: Record<string, unknown> = { model: req.model, messages: req.messages, stream: !!req.stream };
    if (req.stream) body.stream_options = { include_usage: true };
    if (req.temperature !== undefined) body.temperature = req.temperature;
    if (req.max_tokens !== undefined) body.max_tokens = req.max_tokens;
    const failed = (e: unknown): LlmError => {
      // The signals first: an abort surfaces as whatever the body reader threw (often a "broken stream").
      if (opts.signal?.aborted) return aborted();
      if (timeout.signal.aborted) {
        return new LlmError(
          `Cannot call the LLM at ${this.endpoint}: no complete reply within ${this.#o.timeoutMs} ms`,
          "timeout",
          true,
        );
      }
      if (e instanceof LlmError) return e;
      return new LlmError(
        `Cannot call the LLM at ${this.endpoint}: ${(e as Error).message ?? e}`,
        "network",
        true,
      );
    };
    try {
      let res: Response;
      try {
        res = await this.#o.fetch(this.endpoint, {
          method: "POST",
          headers: {
            ...this.#o.headers,
            "content-type": "application/json",
            accept: req.stream ? "text/event-stream" : "application/json",
            authorization: `Bearer ${this.#o.apiKey}`,
          },
          body: JSON.stringify(body),
          signal,
        });
      } catch (e) {
        throw failed(e);
      }
      if (!res.ok) {
        const text = await boundedText(res, 64 << 10).catch(() => "");
        throw new LlmError(
          `Cannot call the LLM at ${this.endpoint}: HTTP ${res.status}${errorDetail(text)}`,
          "http",
          RETRYABLE_STATUS(res.status),
          res.status,
          parseRetryAfter(res.headers.get("retry-after"), Date.now()),
        );
      }
      try {
        return await readReply(res, !!req.stream, req.model, this.#o.maxReplyBytes, opts.onDelta);
      } catch (e) {
        throw failed(e);
      }
    } finally {
      clearTimeout(timer);
    }
  }
}

function aborted(): LlmError {
  return new LlmError(
    "Cannot finish the LLM call: it was cancelled (the node was stopped)",
    "aborted",
    false,
  );
}

function withAttempts(e: LlmError, attempts: number, suffix = ""): LlmError {
  const out = suffix ? new LlmError(e.message + suffix, e.kind, e.retryable, e.status, e.retryAfterMs) : e;
  out.attempts = attempts;
  return out;
}

/** The provider's own error message, bounded and on one line, when the body carries one. */
export function errorDetail(text: string): string {
  let msg = "";
  try {
    const j = JSON.parse(text) as { error?: unknown; message?: unknown };
    const e = j.error;
    msg = typeof e === "string"
      ? e
      : e && typeof e === "object" && typeof (e as { message?: unknown }).message === "string"
      ? (e as { message: string }).message
      : typeof j.message === "string"
      ? j.message
      : "";
  } catch {
    msg = text;
  }
  msg = msg.replace(/\s+/g, " ").trim().slice(0, 300);
  return msg ? `: ${msg}` : "";
}
