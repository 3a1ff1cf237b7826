/**
 * The shapes shared by the client, the agent loop, the planner and the proxy: chat messages, the usage the
 * API reports, and a finished call.
 *
 * @module
 */

export type Role = "system" | "user" | "assistant" | "tool";

export interface ChatMessage {
  role: Role;
  content: string;
}

/** Token counts and cost exactly as the API's `usage` object reported them; cost is null when absent. */
export interface Usage {
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number;
  cost: number | null;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  /** Stream the reply (server-sent events); usage is asked for with `stream_options.include_usage`. */
  stream?: boolean;
  temperature?: number;
  max_tokens?: number;
}

export interface ChatResult {
  content: string;
  finish_reason: string | null;
  /** Null when the server reported no usage: such a call is billed as 0 tokens, never estimated. */
  usage: Usage | null;
  /** The model the server says answered (falls back to the requested one). */
  model: string;
  latency_ms: number;
  /** HTTP attempts made, retries included. */
  attempts: number;
}

/** Reads a `usage` object defensively: only finite, non-negative numbers count. */
export function readUsage(raw: unknown): Usage | null {
  if (!raw || typeof raw !== "object") return null;
  const u = raw as Record<string, unknown>;
  const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : null);
  const prompt = num(u.prompt_tokens);
  const completion = num(u.completion_tokens);
  const total = num(u.total_tokens) ??
    (prompt !== null || completion !== null ? (prompt ?? 0) + (completion ?? 0) : null);
  if (total === null) return null;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: total, cost: num(u.cost) };
}
