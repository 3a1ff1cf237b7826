/**
 * Reads a run's usage files (`.arrow/usage/<node>.jsonl`, one line per LLM call, agent and proxy alike)
 * into per-node totals for the report: each call id counted once, cost summed only where the API gave one.
 *
 * @module
 */
import { readJsonl } from "../llm/jsonl.ts";
import type { NodeUsage } from "../record/usage_section.ts";

export function readUsage(runDir: string): Record<string, NodeUsage> {
  const dir = `${runDir}/.arrow/usage`;
  const out: Record<string, NodeUsage> = {};
  let names: string[];
  try {
    names = [...Deno.readDirSync(dir)].filter((e) => e.isFile && e.name.endsWith(".jsonl")).map((e) =>
      e.name
    );
  } catch {
    return out;
  }
  for (const name of names.sort()) {
    const seen = new Set<string>();
    const u: NodeUsage = { calls: 0, tokens: 0, cost: null };
    for (const r of readJsonl(`${dir}/${name}`).records) {
      if (typeof r.call !== "string" || seen.has(r.call)) continue;
      seen.add(r.call);
      u.calls++;
      if (typeof r.tokens === "number" && Number.isFinite(r.tokens) && r.tokens > 0) u.tokens += r.tokens;
      if (typeof r.cost === "number" && Number.isFinite(r.cost)) u.cost = (u.cost ?? 0) + r.cost;
    }
    out[name.replace(/\.jsonl$/, "")] = u;
  }
  return out;
}
