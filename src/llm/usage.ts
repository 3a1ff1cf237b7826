/**
 * Usage lines: one JSON line per API call, `{call, tokens, prompt_tokens, completion_tokens, cost, model,
 * latency_ms, via}`, appended to the node's usage file. Tokens come only from the API's usage fields. A
 * call id appears once per real call, so whoever sums the file counts each id once.
 *
 * @module
 */
import { appendJsonl, readJsonl } from "./jsonl.ts";
import type { Usage } from "./types.ts";

export interface UsageLine {
  call: string;
  /** usage.total_tokens; 0 when the API reported no usage. */
  tokens: number;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  cost: number | null;
  model: string;
  latency_ms: number;
  via: "worker" | "proxy" | "planner";
}

export function usageLine(
  call: string,
  usage: Usage | null,
  model: string,
  latency_ms: number,
  via: UsageLine["via"],
): UsageLine {
  return {
    call,
    tokens: usage?.total_tokens ?? 0,
    prompt_tokens: usage?.prompt_tokens ?? null,
    completion_tokens: usage?.completion_tokens ?? null,
    cost: usage?.cost ?? null,
    model,
    latency_ms,
    via,
  };
}

export function appendUsage(path: string, line: UsageLine): void {
  appendJsonl(path, line);
}

/**
 * A running total of a usage file, read incrementally (only bytes appended since the last look), each call
 * id counted once.
 */
export class UsageLedger {
  #offset = 0;
  #tokens = 0;
  #cost = 0;
  readonly #seen = new Set<string>();

  constructor(readonly path: string) {}

  #refresh(): void {
    const { records, end } = readJsonl(this.path, this.#offset);
    this.#offset = end;
    for (const r of records) {
      const id = typeof r.call === "string" ? r.call : null;
      const t = typeof r.tokens === "number" && Number.isFinite(r.tokens) && r.tokens > 0 ? r.tokens : 0;
      if (id === null || this.#seen.has(id)) continue;
      this.#seen.add(id);
      this.#tokens += t;
      if (typeof r.cost === "number" && Number.isFinite(r.cost)) this.#cost += r.cost;
    }
  }

  /** Tokens used so far (distinct calls). */
  tokens(): number {
    this.#refresh();
    return this.#tokens;
  }

  cost(): number {
    this.#refresh();
    return this.#cost;
  }

  has(call: string): boolean {
    this.#refresh();
    return this.#seen.has(call);
  }
}

/** Total tokens of a usage file, each call id counted once (what the engine should bill). */
export function usedTokens(path: string): number {
  return new UsageLedger(path).tokens();
}
