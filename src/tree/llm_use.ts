/**
 * The LLM ideator's use of its API, from the run's `logs/llm.jsonl` (one line per call: its tokens, and its
 * cost when the API reported one): what the tree report's "LLM use" section and the dashboard's tree view
 * both show. A torn last line (a run still writing) is skipped.
 *
 * @module
 */

export interface LlmUse {
  calls: number;
  tokens: number;
  /** Null when the API reported no cost for any call. */
  cost: number | null;
}

export const LLM_LOG = "logs/llm.jsonl";

/** The totals of a log's text, or null when it records no call. */
export function llmUseOf(text: string): LlmUse | null {
  let calls = 0, tokens = 0, cost: number | null = null;
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    let r: { tokens?: unknown; cost?: unknown };
    try {
      r = JSON.parse(line);
    } catch {
      continue;
    }
    if (!r || typeof r !== "object") continue;
    calls++;
    if (typeof r.tokens === "number" && Number.isFinite(r.tokens)) tokens += r.tokens;
    if (typeof r.cost === "number" && Number.isFinite(r.cost)) cost = (cost ?? 0) + r.cost;
  }
  return calls ? { calls, tokens, cost } : null;
}
