/**
 * A run's LLM use so far, for the page header of either view: calls, tokens, and the cost when the API
 * reported one (agent and proxy calls on a graph run; the LLM ideator's on a tree run).
 *
 * @module
 */
import { money } from "../../src/record/usage_section.ts";

export interface LlmUseFigures {
  calls: number;
  tokens: number;
  cost: number | null;
}

export function LlmUse({ u, title }: { u: LlmUseFigures | null; title: string }) {
  if (!u) return null;
  return (
    <span class="llm-use" title={title} data-calls={u.calls} data-tokens={u.tokens} data-cost={u.cost ?? ""}>
      LLM {u.calls ? `${u.calls} call${u.calls === 1 ? "" : "s"} · ` : ""}
      {u.tokens.toLocaleString("en-US")} tokens
      {u.cost !== null ? ` · ${money(u.cost)}` : ""}
    </span>
  );
}
