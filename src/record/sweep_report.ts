/**
 * The sweep section of the anytime report: per sweep, one row per configuration (arguments, status, the
 * highest rung it reached, its best score, where halving or a failure stopped it — with the rank and rung
 * the black box recorded —, the stages it trained) and the compute spent against a full sweep. Everything
 * comes from the state and the black box; plan-supplied text is escaped.
 *
 * @module
 */
import { heading, table } from "./render.ts";
import type { SweepGroup } from "../graph/sweep.ts";
import type { EvidenceMap } from "../model/evidence.ts";
import type { Incident, RunState } from "../model/state.ts";
import { judge } from "../overwatch/verdict.ts";
import { mdInline } from "./md_escape.ts";

const fmt = (x: number | null | undefined) => (typeof x === "number" ? x.toFixed(4) : "—");
const args = (a: Record<string, unknown>) =>
  mdInline(Object.entries(a).map(([k, v]) => `${k}=${v}`).join(" "));

/** Stages a configuration trained: the last step Arrow observed (a restart's repeated stages not counted). */
export function stagesTrained(state: RunState, id: string): number {
  return state.nodes[id]!.step;
}

/** Compute of a sweep in stages: spent so far, and what training every configuration to the end costs. */
export function sweepCompute(state: RunState, g: SweepGroup): { spent: number; full: number | null } {
  const spent = g.configs.reduce((s, c) => s + stagesTrained(state, c.id), 0);
  const full = g.configs.every((c) => c.stages !== null)
    ? g.configs.reduce((s, c) => s + c.stages!, 0)
    : null;
  return { spent, full };
}

function stoppedAt(state: RunState, id: string, incidents: readonly Incident[]): string {
  const ns = state.nodes[id]!;
  if (ns.status === "superseded") {
    const i = incidents.findLast((x) => x.node === id && x.type === "SUPERSEDED_KILL");
    const e = i?.evidence as EvidenceMap["SUPERSEDED_KILL"] | undefined;
    if (e?.rung !== undefined) {
      return `step ${e.step}: rank ${e.rank}/${e.reached} at rung ${e.rung}, top ${e.keep} stay`;
    }
    if (e) {
      return e.started ? `step ${e.step}: answered by ${mdInline(String(e.answered_by))}` : "never started";
    }
  }
  if (ns.status === "verified" || ns.status === "running" || ns.status === "pending") return "—";
  return `${ns.status}${ns.cause ? ` (${ns.cause})` : ""} at step ${ns.step}`;
}

function sweepGroup(state: RunState, g: SweepGroup, incidents: readonly Incident[]): string[] {
  const metric = mdInline(state.plan.protocol.metric);
  const h = g.halving;
  const lines = heading(`Sweep ${mdInline(g.node)}: ${mdInline(g.title, { max: 120 })}`);
  lines.push(
    `${g.configs.length} configurations` +
      (h
        ? `, successive halving with η ${h.eta} at steps ${h.rungs.join(", ")} (at least ${h.min_keep} kept)`
        : ", no halving (every configuration trains to the end)") +
      `; ranked by the ${metric} Arrow read from each configuration's metrics at its checkpoints` +
      (g.rankers.length ? `; ranker ${g.rankers.map((r) => mdInline(r)).join(", ")}.` : "."),
    "",
  );
  const j = judge(state);
  const winner = g.configs.find((c) => c.id === j.detail.method && j.verdict === "RESEARCH ANSWERED");
  if (winner) {
    lines.push(`Winner: ${mdInline(winner.id)} (${args(winner.args)}), verified ${fmt(j.detail.score)}.`, "");
  }
  const cols = [
    "configuration",
    "arguments",
    "status",
    "rung reached",
    `best ${metric}`,
    "stopped at",
    "stages",
  ];
  const rows = g.configs.map((c) => {
    const ns = state.nodes[c.id]!;
    const reached = h?.rungs.filter((r) => ns.ckpts.some((k) => k.step >= r)).at(-1);
    const best = ns.status === "verified" ? ns.manifest?.score ?? ns.best : ns.best;
    return [
      mdInline(c.id),
      args(c.args),
      ns.status,
      String(reached ?? "—"),
      fmt(best),
      stoppedAt(state, c.id, incidents),
      `${stagesTrained(state, c.id)}${c.stages !== null ? ` of ${c.stages}` : ""}`,
    ];
  });
  lines.push(...table(cols, rows));
  const { spent, full } = sweepCompute(state, g);
  lines.push(
    "",
    full
      ? `Compute: ${spent} stages trained of the ${full} a full sweep would train (${
        (100 * spent / full).toFixed(1)
      }%).`
      : `Compute: ${spent} stages trained.`,
    "",
  );
  return lines;
}

/** The report lines of every sweep of the run (none when the plan has no sweep). */
export function sweepSection(state: RunState, incidents: readonly Incident[]): string[] {
  return (state.plan.sweeps ?? []).flatMap((g) => sweepGroup(state, g, incidents));
}
