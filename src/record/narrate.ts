/**
 * One plain sentence per incident, for the terminal and the dashboard's narration bar. Text only: callers
 * must render it as text, never as HTML (evidence comes from agents).
 *
 * @module
 */
import type { Incident } from "../model/state.ts";

const s = (
  v: unknown,
) => (typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toFixed(4)) : String(v));
const lane = (p: unknown) => String(p).replace(/^nodes\//, "");

export function narrate(i: Incident): string {
  const e = i.evidence;
  const fused = i.ladder === "fuse";
  switch (i.type) {
    case "SCOPE_VIOLATION": {
      const paths = (e.paths as string[] | undefined) ?? [];
      const how = (e.attempts as { stopped_by: string | null }[] | undefined)?.some((a) => a.stopped_by)
        ? "blocked"
        : "reverted";
      return e.writer === "unattributed"
        ? `Someone wrote into ${i.node}'s lane (${paths.map(lane).join(", ")}) — reverted`
        : `${i.node} wrote outside its lane (${paths.map(lane).join(", ")}) — ${how}, blamed`;
    }
    case "COMPARABILITY_BLOCK":
      return `${i.node}'s ${e.field} differs from the frozen baseline's — result withheld, baseline stands`;
    case "PLATEAU_TRIP":
      return i.ladder === "graph_surgery"
        ? `${i.node} grown by graph surgery (${e.by ?? "planner"}), funded by the freed ${e.funded_by}`
        : `${i.node} plateaued at ${s(e.best_dev)} below target ${
          s(e.target)
        } — killed at ${e.ckpt}, best checkpoint kept`;
    case "HUNG_RESTART":
      return fused
        ? `${i.node} hung again at step ${e.step} — killed`
        : `${i.node} hung at step ${e.step} — restarted from ${e.resume_from ?? "scratch"}`;
    case "SUPERSEDED_KILL":
      return `${i.node} superseded (question answered by ${e.answered_by}) — killed at ${e.ckpt}, gpu freed`;
    case "FALSE_COMPLETION":
      return fused
        ? `${i.node}'s claim failed acceptance again (lap ${e.lap}/${e.lap_budget}) — fused`
        : `${i.node} claimed done but acceptance exited ${e.exit_code} — sent back (lap ${e.lap}/${e.lap_budget})`;
    case "OSCILLATION_TRIP":
      return `${i.node} keeps flipping its output (A→B→A) — ${fused ? "fused" : "bounced"}`;
    case "BUDGET_TRIP":
      return e.budget
        ? `${i.node} ran out of its ${e.budget} budget (${e.used}/${e.limit}) — fused`
        : `${i.node} burned tokens for ${e.frozen_ticks} ticks without changing anything — ${
          fused ? "fused" : "bounced"
        }`;
    case "STALE_CASCADE":
      return `${i.node} reopened — ${
        ((e.demoted as string[]) ?? []).length
      } node(s) turned stale and will re-run`;
    case "TAINT_INVALIDATION":
      return `${i.node} found broken — readings re-evaluated (${
        ((e.invalidated as string[]) ?? []).join(", ")
      }), training spared (${((e.spared as string[]) ?? []).join(", ") || "none"})`;
  }
}
