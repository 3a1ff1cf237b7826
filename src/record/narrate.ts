/**
 * One plain sentence per incident, for the terminal and the dashboard's narration bar, built from the typed
 * evidence of its incident type. Text only: callers must render it as text, never as HTML (evidence comes
 * from agents), and escape it for a terminal.
 *
 * @module
 */
import type { EvidenceMap } from "../model/evidence.ts";
import { isSurgery } from "../model/evidence.ts";
import type { Incident } from "../model/state.ts";

const s = (
  v: unknown,
) => (typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toFixed(4)) : String(v ?? "—"));
const lane = (p: unknown) => String(p).replace(/^nodes\//, "");
const list = (xs: readonly string[], max = 4) =>
  xs.length > max ? `${xs.slice(0, max).join(", ")} and ${xs.length - max} more` : xs.join(", ");

export function narrate(i: Incident): string {
  const fused = i.ladder === "fuse";
  if (isSurgery(i.evidence)) {
    const g = i.evidence;
    return `graph surgery: ${g.spawned} grown${
      g.by ? ` by ${g.by}` : ""
    } to follow up ${g.cause_node}'s ${g.cause}, ` +
      `funded by the freed ${g.funded_by}`;
  }
  switch (i.type) {
    case "SCOPE_VIOLATION": {
      const e = i.evidence as EvidenceMap["SCOPE_VIOLATION"];
      const how = e.attempts.some((a) => a.stopped_by)
        ? "blocked"
        : e.attempts.every((a) => a.reverted)
        ? "reverted"
        : "could not be reverted";
      return e.writer === "unattributed"
        ? `Someone wrote into ${i.node}'s lane (${list(e.paths.map(lane))}) — ${how}; writer unknown`
        : `${i.node} wrote outside its lane (${list(e.paths.map(lane))}) — ${how}, blamed`;
    }
    case "COMPARABILITY_BLOCK": {
      const e = i.evidence as EvidenceMap["COMPARABILITY_BLOCK"];
      return `${i.node}'s ${e.field} differs from the frozen tuple — result withheld, baseline stands`;
    }
    case "PLATEAU_TRIP": {
      const e = i.evidence as EvidenceMap["PLATEAU_TRIP"];
      return `${i.node} plateaued at ${s(e.best_dev)} below target ${
        s(e.target)
      } — killed at ${e.ckpt}, best checkpoint kept`;
    }
    case "HUNG_RESTART": {
      const e = i.evidence as EvidenceMap["HUNG_RESTART"];
      const where = e.silent_from_start ? "before writing any metric" : `at step ${e.step}`;
      return fused
        ? `${i.node} hung again ${where} — killed`
        : `${i.node} hung ${where} — restarted from ${e.resume_from ?? "scratch"}`;
    }
    case "SUPERSEDED_KILL": {
      const e = i.evidence as EvidenceMap["SUPERSEDED_KILL"];
      if (e.rung !== undefined) {
        return `${i.node} cut by successive halving at rung ${e.rung} of ${e.sweep} (rank ${e.rank} of ${e.reached}, ` +
          `top ${e.keep} stay) — killed at ${e.ckpt}, gpu freed`;
      }
      return e.started
        ? `${i.node} superseded (question answered by ${e.answered_by}) — killed at ${e.ckpt}, gpu freed`
        : `${i.node} superseded before it started (question answered by ${e.answered_by}) — never admitted`;
    }
    case "FALSE_COMPLETION": {
      const e = i.evidence as EvidenceMap["FALSE_COMPLETION"];
      const then = fused ? "fused" : `sent back (lap ${e.lap}/${e.lap_budget})`;
      if (e.crash) {
        const how = e.crash.signal
          ? `killed by ${e.crash.signal}`
          : e.crash.exit_code === null
          ? "could not start"
          : `exit ${e.crash.exit_code}`;
        const last = e.crash.stderr_tail.at(-1);
        return `${i.node} crashed (${how})${last ? `: ${last.slice(0, 120)}` : ""} — ${then}`;
      }
      if (e.observed_best !== undefined) {
        return `${i.node} claimed ${s(e.claimed_score)}, better than the best it logged (${
          s(e.observed_best)
        }) — ${then}`;
      }
      if (e.exit_code !== null && e.exit_code !== 0) {
        return `${i.node}'s claim failed acceptance (exit ${e.exit_code}) — ${then}`;
      }
      return `${i.node}'s claim was refused: ${e.problem ?? "acceptance failed"} — ${then}`;
    }
    case "OSCILLATION_TRIP":
      return `${i.node} keeps flipping its output (A→B→A) — ${fused ? "fused" : "bounced"}`;
    case "BUDGET_TRIP": {
      const e = i.evidence as EvidenceMap["BUDGET_TRIP"];
      if ("budget" in e) {
        const used = e.budget === "wall"
          ? `${Math.round(e.used / 1000)} s of ${Math.round(e.limit / 1000)} s`
          : `${e.used}/${e.limit}`;
        const spin = e.spinning ? `, spinning: ${e.spinning.frozen_steps} agent steps changed nothing` : "";
        return `${i.node} ran out of its ${e.budget} budget (${used}${spin}) — fused`;
      }
      const spun = "frozen_steps" in e
        ? `${e.frozen_steps} agent steps${e.stopped_by ? ` (then hit its ${e.stopped_by})` : ""}`
        : `${e.frozen_ticks} observations`;
      return `${i.node} burned tokens for ${spun} without changing anything — ${fused ? "fused" : "bounced"}`;
    }
    case "STALE_CASCADE": {
      const e = i.evidence as EvidenceMap["STALE_CASCADE"];
      const why = e.reason === "operator"
        ? `reopened by the operator${e.note ? ` (${e.note})` : ""}`
        : e.reason === "scope changed"
        ? `changed on disk (${list((e.changed ?? []).map(lane), 2)})`
        : e.reason === "protocol re-frozen"
        ? "re-froze the protocol"
        : "reopened";
      return `${i.node} ${why} — ${e.demoted.length} node(s) turned stale and will re-run`;
    }
    case "TAINT_INVALIDATION": {
      const e = i.evidence as EvidenceMap["TAINT_INVALIDATION"];
      const why = e.reason === "operator"
        ? ` by the operator${e.note ? ` (${e.note})` : ""}`
        : e.reason === "scope changed"
        ? " (changed on disk)"
        : "";
      return `${i.node} found broken${why} — readings re-evaluated (${
        list(e.invalidated)
      }), training spared (${list(e.spared) || "none"})`;
    }
  }
}
