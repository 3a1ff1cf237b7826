/**
 * The reports' account of LLM use, for both modes: a graph run's tokens per node and in total (the engine's
 * count, in the run state), with cost and call counts when the run's usage files are at hand and the API
 * reported a cost; a tree run's LLM ideator, its calls, tokens and cost.
 *
 * @module
 */
import type { RunState } from "../model/state.ts";
import { mdInline } from "./md_escape.ts";
import { section, table } from "./render.ts";

/** The title both modes give the section (a report that has it is not given it twice). */
export const LLM_USE = "LLM use";

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
  const cols = ["node", "calls", "tokens", ...(anyCost ? ["cost"] : [])];
  const cells = rows.map((r) => [
    mdInline(r.id),
    String(r.calls ?? "—"),
    String(r.tokens),
    ...(anyCost ? [r.cost === null ? "—" : money(r.cost)] : []),
  ]);
  // Calls are known only from usage files; tokens of a node without one are the engine's own count.
  cells.push([
    "**total**",
    String(total.calls),
    String(total.tokens),
    ...(anyCost ? [money(total.cost!)] : []),
  ]);
  const out = section(LLM_USE, table(cols, cells));
  if (anyCost && rows.some((r) => r.cost === null)) {
    out.push("Cost is the sum of what the API reported; nodes marked — reported none.", "");
  }
  return out;
}

/** A tree run's section: what its LLM ideator's calls add up to (tree/llm_use.ts). */
export function ideatorUseSection(use: { calls: number; tokens: number; cost: number | null }): string[] {
  const cost = use.cost === null ? "— (not reported by the API)" : money(use.cost);
  return section(
    LLM_USE,
    table(["ideator calls", "tokens", "cost"], [[String(use.calls), String(use.tokens), cost]]),
  );
}
