/**
 * The anytime report's account of LLM use: tokens per node and in total (the engine's count, in the run
 * state), and cost and call counts when the run's usage files are at hand and the API reported a cost.
 *
 * @module
 */
import type { RunState } from "../model/state.ts";
import { mdInline } from "./md_escape.ts";

/** What a node's usage file adds up to: distinct calls, their tokens, and their cost when any was reported. */
export interface NodeUsage {
  calls: number;
  tokens: number;
  cost: number | null;
}

/** Money as the report and the dashboard show it. */
export const money = (c: number) => `$${c < 0.01 ? c.toFixed(6) : c.toFixed(4)}`;

interface UsageRow {
  id: string;
  tokens: number;
  calls: number | null;
  cost: number | null;
}

/** One row per node that used a token or made a call: tokens the larger of the engine's and the file's. */
function usageRows(state: RunState, usage: Record<string, NodeUsage>): UsageRow[] {
  const ids = [...new Set([...state.plan.order, ...Object.keys(usage)])].filter((id) =>
    (state.nodes[id]?.tokens ?? 0) > 0 || (usage[id]?.calls ?? 0) > 0
  );
  return ids.map((id) => {
    const u = usage[id];
    const tokens = Math.max(state.nodes[id]?.tokens ?? 0, u?.tokens ?? 0);
    return { id, tokens, calls: u?.calls ?? null, cost: u?.cost ?? null };
  });
}

/**
 * The run's LLM use in total (what the dashboard's header shows live): calls (known from usage files only),
 * tokens, and cost when any call reported one; null when no node used any.
 */
export function usageTotals(
  state: RunState,
  usage: Record<string, NodeUsage> = {},
): { calls: number; tokens: number; cost: number | null } | null {
  const rows = usageRows(state, usage);
  if (!rows.length) return null;
  return {
    calls: rows.reduce((n, r) => n + (r.calls ?? 0), 0),
    tokens: rows.reduce((n, r) => n + r.tokens, 0),
    cost: rows.some((r) => r.cost !== null) ? rows.reduce((n, r) => n + (r.cost ?? 0), 0) : null,
  };
}

/** Markdown lines for the section; empty when no node used a token and no usage is known. */
export function usageSection(state: RunState, usage: Record<string, NodeUsage> = {}): string[] {
  const rows = usageRows(state, usage);
  const total = usageTotals(state, usage);
  if (!total) return [];
  const anyCost = total.cost !== null;
  const out = [
    "## LLM use",
    "",
    `| node | calls | tokens |${anyCost ? " cost |" : ""}`,
    `|---|---|---|${anyCost ? "---|" : ""}`,
  ];
  for (const r of rows) {
    out.push(
      `| ${mdInline(r.id)} | ${r.calls ?? "—"} | ${r.tokens} |${
        anyCost ? ` ${r.cost === null ? "—" : money(r.cost)} |` : ""
      }`,
    );
  }
  // Calls are known only from usage files; tokens of a node without one are the engine's own count.
  out.push(
    `| **total** | ${total.calls} | ${total.tokens} |${anyCost ? ` ${money(total.cost!)} |` : ""}`,
    "",
  );
  if (anyCost && rows.some((r) => r.cost === null)) {
    out.push("Cost is the sum of what the API reported; nodes marked — reported none.", "");
  }
  return out;
}
