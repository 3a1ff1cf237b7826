/**
 * A run's LLM use as the dashboard shows it: each node's usage file (`.arrow/usage/<node>.jsonl`, agent and
 * proxy calls alike) summed — distinct calls, tokens, and cost only where the API reported one. Files are
 * read as plain files only (no link followed) and capped, like everything else the server reads.
 *
 * @module
 */
import type { NodeUsage } from "../record/usage_section.ts";
import { readPlain } from "./plain_files.ts";

const FILE_CAP = 4 * 1024 * 1024;
const MAX_FILES = 500;
const NODE = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,199}\.jsonl$/;

/** Per-node totals, or null when the run has no usage files. */
export async function usageOf(dir: string): Promise<Record<string, NodeUsage> | null> {
  let names: string[];
  try {
    names = [...Deno.readDirSync(`${dir}/.arrow/usage`)].filter((e) => e.isFile && NODE.test(e.name))
      .map((e) => e.name).sort().slice(0, MAX_FILES);
  } catch {
    return null;
  }
  if (!names.length) return null;
  const out: Record<string, NodeUsage> = {};
  for (const name of names) {
    const r = await readPlain(dir, `.arrow/usage/${name}`, FILE_CAP);
    if (!r.ok) continue;
    const seen = new Set<string>();
    const u: NodeUsage = { calls: 0, tokens: 0, cost: null };
    for (const line of r.text.split("\n")) {
      let o: Record<string, unknown>;
      try {
        o = JSON.parse(line);
      } catch {
        continue; // a torn last line, or not a usage line
      }
      if (!o || typeof o.call !== "string" || seen.has(o.call)) continue;
      seen.add(o.call);
      u.calls++;
      if (typeof o.tokens === "number" && Number.isFinite(o.tokens) && o.tokens > 0) u.tokens += o.tokens;
      if (typeof o.cost === "number" && Number.isFinite(o.cost)) u.cost = (u.cost ?? 0) + o.cost;
    }
    out[name.slice(0, -".jsonl".length)] = u;
  }
  return out;
}
