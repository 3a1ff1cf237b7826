/**
 * Reads a successful chat-completions reply, streamed (SSE chunks, `[DONE]`, a final usage chunk) or whole
 * (one JSON object), into content, finish reason and usage. Malformed JSON, an error object in the body and
 * a stream that ends early each become an LlmError with a clear message.
 *
 * @module
 */
import { LlmError } from "./errors.ts";
import { sseData } from "./sse.ts";
import { readUsage, type Usage } from "./types.ts";

export interface Reply {
  content: string;
  finish_reason: string | null;
  usage: Usage | null;
  model: string;
}

/** Reads at most `max` bytes of a body as text. */
export async function boundedText(res: Response, max: number): Promise<string> {
  if (!res.body) return "";
  const parts: Uint8Array[] = [];
  let n = 0;
  for await (const chunk of res.body) {
    parts.push(chunk.subarray(0, Math.max(0, max - n)));
    n += chunk.length;
    if (n >= max) break;
  }
  const all = new Uint8Array(Math.min(n, max));
  let off = 0;
  for (const p of parts) {
    all.set(p, off);
    off += p.length;
  }
  return new TextDecoder().decode(all);
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);

/** Throws for an `{"error": …}` body, which some providers send with status 200. */
function apiError(j: Obj): void {
  if (!("error" in j) || j.error === null || j.error === undefined) return;
  const e = j.error;
  const msg = typeof e === "string"
    ? e
    : isObj(e) && typeof e.message === "string"
    ? e.message
    : JSON.stringify(e);
  const code = isObj(e) ? Number(e.code) : NaN;
  const retryable = code === 429 || code === 408 || code >= 500;
  throw new LlmError(
    `Cannot use the LLM's reply: the API reported an error: ${msg.replace(/\s+/g, " ").slice(0, 300)}`,
    "api",
    retryable,
    Number.isFinite(code) ? code : null,
  );
}

function parseJson(text: string, what: string): Obj {
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch (e) {
    const head = text.slice(0, 80).replace(/\s+/g, " ");
    throw new LlmError(
      `Cannot read the LLM's reply: malformed JSON in ${what} (${(e as Error).message}; starts "${head}")`,
      "malformed",
      false,
    );
  }
  if (!isObj(j)) {
    throw new LlmError(`Cannot read the LLM's reply: ${what} is not a JSON object`, "malformed", false);
  }
  return j;
}

const text = (v: unknown) => (typeof v === "string" ? v : "");

export async function readReply(
  res: Response,
  stream: boolean,
  model: string,
  maxBytes: number,
  onDelta?: (t: string) => void,
): Promise<Reply> {
  const isSse = (res.headers.get("content-type") ?? "").includes("text/event-stream");
  if (!stream || !isSse || !res.body) {
    // A server may ignore `stream: true` and answer with one JSON object: accept that too.
    const body = await boundedText(res, maxBytes + 1);
    if (body.length > maxBytes) {
      throw new LlmError(`Cannot read the LLM's reply: larger than ${maxBytes} bytes`, "too_large", false);
    }
    const j = parseJson(body, "the response body");
    apiError(j);
    const choice = Array.isArray(j.choices) && isObj(j.choices[0]) ? j.choices[0] : null;
    if (!choice) {
      throw new LlmError("Cannot read the LLM's reply: no choices in the response", "malformed", false);
    }
    const msg = isObj(choice.message) ? choice.message : {};
    return {
      content: text(msg.content),
      finish_reason: typeof choice.finish_reason === "string" ? choice.finish_reason : null,
      usage: readUsage(j.usage),
      model: text(j.model) || model,
    };
  }
  let content = "";
  let finish: string | null = null;
  let usage: Usage | null = null;
  let served = "";
  let done = false;
  try {
    for await (const data of sseData(res.body)) {
      if (data.trim() === "[DONE]") {
        done = true;
        break;
      }
      const j = parseJson(data, "a streamed chunk");
      apiError(j);
      served ||= text(j.model);
      usage = readUsage(j.usage) ?? usage;
      const choice = Array.isArray(j.choices) && isObj(j.choices[0]) ? j.choices[0] : null;
      if (!choice) continue;
      const piece = isObj(choice.delta) ? text(choice.delta.content) : "";
      if (piece) {
        content += piece;
        if (content.length > maxBytes) {
          throw new LlmError(
            `Cannot read the LLM's reply: larger than ${maxBytes} bytes`,
            "too_large",
            false,
          );
        }
        onDelta?.(piece);
      }
      if (typeof choice.finish_reason === "string") finish = choice.finish_reason;
    }
  } catch (e) {
    if (e instanceof LlmError) throw e;
    throw truncated(`the stream broke (${(e as Error).message})`);
  }
  // Servers that omit [DONE] but finished the choice are accepted; a stream cut mid-reply is not.
  if (!done && finish === null) throw truncated("the stream ended before the reply was finished (no [DONE])");
  return { content, finish_reason: finish, usage, model: served || model };
}

function truncated(why: string): LlmError {
  return new LlmError(`Cannot read the LLM's reply: ${why}`, "truncated", false);
}
