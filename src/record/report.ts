/**
 * The anytime report: markdown rendered from the verified set and the black box, so pulling the plug at any
 * moment leaves a complete account of what is currently known, what was refused and why.
 *
 * @module
 */
import type { Incident, RunState } from "../model/state.ts";
import { judge } from "../overwatch/verdict.ts";

const fmt = (
  x: unknown,
) => (typeof x === "number" ? (Number.isInteger(x) ? String(x) : x.toFixed(4)) : String(x ?? "—"));
const short = (h: unknown) => (typeof h === "string" ? h.slice(0, 12) : "—");
const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

export function renderReport(state: RunState, incidents: readonly Incident[]): string {
  const { plan } = state;
  const j = judge(state);
  const final = state.verdict !== null;
  const lines: string[] = [];
  lines.push(`# Anytime report — ${state.scenario}`, "");
  lines.push(`Version ${state.report}, tick ${state.tick}, ${final ? "final" : "run in progress"}.`, "");
  lines.push(`**Question.** ${plan.question}`, "");
  lines.push(
    `**Protocol.** ${plan.protocol.version}: ${plan.protocol.metric}, ${plan.protocol.direction}` +
      (state.frozen
        ? `; frozen by ${state.frozen.by} (data ${short(state.frozen.data_hash)}, split ${
          short(state.frozen.split_hash)
        }, seed ${state.frozen.seed})`
        : "; not frozen yet") +
      ".",
    "",
  );
  lines.push(`## Verdict: ${state.verdict ?? j.verdict}${final ? "" : " (provisional)"}`, "");
  const d = j.detail;
  if (j.verdict === "RESEARCH ANSWERED") {
    lines.push(
      `${d.method} scores ${fmt(d.score)} ${d.metric} against the baseline's ${fmt(d.baseline_score)}.`,
    );
  } else if (j.verdict === "NEGATIVE RESULT") {
    lines.push(
      `${d.method} (${d.status}) reached ${fmt(d.best_score)} ${d.metric} at best (step ${d.best_step}), ` +
        `not beating the baseline's ${fmt(d.baseline_score)}. The best checkpoint is kept.`,
    );
  } else if (j.verdict === "RESULT WITHHELD") {
    lines.push(
      `${d.method}'s result is withheld (${d.cause}); the baseline's ${fmt(d.baseline_score)} stands.`,
    );
  } else lines.push(`No decidable answer yet: ${d.reason}.`);
  lines.push("");

  lines.push(
    "## Verified knowledge",
    "",
    "| node | role | score | data | split | protocol | seed |",
    "|---|---|---|---|---|---|---|",
  );
  const verified = plan.order.filter((id) => state.nodes[id]?.status === "verified");
  for (const id of verified) {
    const n = plan.nodes.find((x) => x.id === id)!;
    const m = state.nodes[id]!.manifest;
    lines.push(
      `| ${id} | ${n.role} | ${fmt(m?.score)} | ${short(m?.data_hash)} | ${short(m?.split_hash)} | ${
        cell(String(m?.protocol_version ?? "—"))
      } | ${fmt(m?.seed)} |`,
    );
  }
  if (!verified.length) lines.push("| — | | | | | | |");
  lines.push("");

  const refused = plan.order.filter((id) => {
    const st = state.nodes[id]!.status;
    return st !== "verified" && st !== "pending" && st !== "running";
  });
  if (refused.length) {
    lines.push("## Refused, stopped or invalidated", "");
    for (const id of refused) {
      const ns = state.nodes[id]!;
      const best = ns.best !== null
        ? `, best ${plan.protocol.metric} ${fmt(ns.best)} at step ${ns.bestStep}`
        : "";
      lines.push(`- ${id}: ${ns.status}${ns.cause ? ` (${ns.cause})` : ""}${best}`);
    }
    lines.push("");
  }
  const open = plan.order.filter((id) =>
    ["pending", "running"].includes(state.nodes[id]!.status) && state.nodes[id]!.spawned
  );
  if (open.length) {
    lines.push(
      "## Open work",
      "",
      ...open.map((id) => `- ${id}: ${state.nodes[id]!.status}`),
      "",
    );
  }

  lines.push(`## Black box (${incidents.length} incident${incidents.length === 1 ? "" : "s"})`, "");
  for (const i of incidents) {
    const ev = Object.entries(i.evidence).slice(0, 4).map(([k, v]) => `${k}=${cell(JSON.stringify(v))}`).join(
      ", ",
    );
    lines.push(
      `- tick ${i.tick} ${i.type} on ${i.node} (${i.ladder}): ${
        ev.length > 300 ? ev.slice(0, 300) + "…" : ev
      }`,
    );
  }
  return lines.join("\n") + "\n";
}
