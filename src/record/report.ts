/**
 * The anytime report: markdown rendered from the verified set, the verdict's judgement and the black box,
 * so pulling the plug at any moment leaves a complete account of what is currently known, what was refused
 * and why. The verdict section renders the judgement (overwatch/verdict.ts) and nothing else, so it cannot
 * say something the verdict does not. Plan- and worker-supplied text is escaped: it cannot forge a heading.
 *
 * @module
 */

import type { Incident, RunState } from "../model/state.ts";
import { judge } from "../overwatch/verdict.ts";
import { mdInline, mdText } from "./md_escape.ts";
import { blackBoxSection } from "./incident_section.ts";
import { lanesSection } from "./lanes_section.ts";
import { heading, renderDocument, section, table, tableRow } from "./render.ts";
import { sweepSection } from "./sweep_report.ts";
import { type NodeUsage, usageSection } from "./usage_section.ts";

const fmt = (
  x: unknown,
) => (typeof x === "number" ? (Number.isInteger(x) ? String(x) : x.toFixed(4)) : String(x ?? "—"));
const short = (h: unknown) => (typeof h === "string" ? mdInline(h.slice(0, 12)) : "—");
const cell = (s: unknown) => mdInline(String(s ?? "—"), { max: 200 });

/** The data set the run used, when the plan's data node names a file (arrow run --data). */
function dataset(state: RunState): string | null {
  for (const n of state.plan.nodes) {
    const w = n.worker;
    if (n.role === "data" && w?.type === "builtin" && typeof w.args?.csv === "string") {
      return `Data: ${cell(String(w.args.csv).split("/").pop())}, target ${cell(w.args.target)}.`;
    }
  }
  return null;
}

/**
 * The report; `usage` (what the run's usage files add up to, per node) adds calls and cost to the LLM-use
 * section, which otherwise shows the tokens the run state counted.
 */
export function renderReport(
  state: RunState,
  incidents: readonly Incident[],
  usage?: Record<string, NodeUsage>,
): string {
  const { plan } = state;
  const j = judge(state);
  const final = state.verdict !== null;
  const lines: string[] = [];
  lines.push(`Version ${state.report}, tick ${state.tick}, ${final ? "final" : "run in progress"}.`, "");
  lines.push(`**Question.**`, "", mdText(plan.question, { max: 2000 }), "");
  const frozen = state.frozen;
  lines.push(
    `**Protocol.** ${mdInline(plan.protocol.version)}: ${
      mdInline(plan.protocol.metric)
    }, ${plan.protocol.direction}` +
      (frozen
        ? `; frozen by ${mdInline(frozen.by)} (data ${short(frozen.data_hash)}, split ${
          short(frozen.split_hash)
        }, protocol ${mdInline(frozen.protocol_version)}, seed ${frozen.seed})`
        : "; no comparability tuple frozen yet") +
      ".",
    "",
  );
  const data = dataset(state);
  if (data) lines.push(data, "");
  lines.push(...heading(`Verdict: ${state.verdict ?? j.verdict}${final ? "" : " (provisional)"}`));
  const d = j.detail;
  const m = (id: string | undefined) => mdInline(id ?? "—");
  if (j.verdict === "RESEARCH ANSWERED") {
    lines.push(
      `${m(d.method)} scores ${fmt(d.score)} ${mdInline(d.metric)} against the baseline's ${
        fmt(d.baseline_score)
      }.`,
    );
  } else if (j.verdict === "NEGATIVE RESULT") {
    lines.push(
      `${m(d.method)} (${d.status}) reached ${fmt(d.best_score)} ${
        mdInline(d.metric)
      } at best (step ${d.best_step}), ` +
        `not beating the baseline's ${fmt(d.baseline_score)}. The best checkpoint is kept.`,
    );
  } else if (j.verdict === "RESULT WITHHELD") {
    lines.push(
      `${m(d.method)}'s result is withheld (${d.cause}); the baseline's ${fmt(d.baseline_score)} stands.`,
    );
  } else lines.push(`No decidable answer: ${mdInline(d.reason ?? "nothing decided yet", { max: 600 })}.`);
  lines.push("");
  if (d.methods.length) {
    const rows = d.methods.map((
      x,
    ) => [m(x.node), x.status, fmt(x.score), fmt(x.best), x.outcome, cell(x.why)]);
    lines.push(...table(["method", "status", "score", "best", "outcome", "why"], rows), "");
  }

  lines.push(...sweepSection(state, incidents));
  const verified = plan.order.filter((id) => state.nodes[id]?.status === "verified");
  const rows = verified.map((id) => {
    const n = plan.nodes.find((x) => x.id === id)!;
    const mf = state.nodes[id]!.manifest;
    return [
      m(id),
      n.role,
      fmt(mf?.score),
      short(mf?.data_hash),
      short(mf?.split_hash),
      cell(mf?.protocol_version),
      fmt(mf?.seed),
    ];
  });
  lines.push(
    ...section("Verified knowledge", [
      ...table(["node", "role", "score", "data", "split", "protocol", "seed"], rows),
      ...(verified.length ? [] : [tableRow(["—", "", "", "", "", "", ""])]),
    ]),
  );

  const refused = plan.order.filter((id) => {
    const st = state.nodes[id]!.status;
    return st !== "verified" && st !== "pending" && st !== "running";
  });
  if (refused.length) {
    lines.push(...heading("Refused, stopped or invalidated"));
    for (const id of refused) {
      const ns = state.nodes[id]!;
      const best = ns.best !== null
        ? `, best ${mdInline(plan.protocol.metric)} ${fmt(ns.best)} at step ${ns.bestStep}`
        : "";
      lines.push(`- ${m(id)}: ${ns.status}${ns.cause ? ` (${ns.cause})` : ""}${best}`);
    }
    lines.push("");
  }
  const open = plan.order.filter((id) =>
    ["pending", "running"].includes(state.nodes[id]!.status) && state.nodes[id]!.spawned
  );
  if (open.length) {
    lines.push(...heading(final ? "Never finished" : "Open work"));
    for (const id of open) {
      const blockers = plan.edges.filter((e) => e.to === id && e.kind === "artifact")
        .map((e) => e.from).filter((p) => state.nodes[p]!.status !== "verified");
      const why = final && blockers.length
        ? ` — waits on ${blockers.map((b) => `${m(b)} (${state.nodes[b]!.status})`).join(", ")}`
        : "";
      lines.push(`- ${m(id)}: ${state.nodes[id]!.status}${why}`);
    }
    lines.push("");
  }
  const unfired = state.faults.filter((f) => !f.fired);
  if (final && unfired.length) {
    lines.push(...heading("Faults that never fired"));
    for (const f of unfired) lines.push(`- ${f.kind} on ${m(f.node)}`);
    lines.push("");
  }

  lines.push(...jobSection(state));
  lines.push(...lanesSection(state.plan.order.map((id) => ({ id, refused: state.nodes[id]?.refused }))));
  if (state.unwatched) {
    // Said once, where the reader looks for what the sandbox could not see.
    lines.push(...section("Writes not observed", [
      "The programs ran unconfined (--unsandboxed, no bubblewrap) and no mount namespace could watch them " +
      "(unshare is not usable here): their writes to /tmp, $HOME and other runs are not observed.",
    ]));
  }
  lines.push(...usageSection(state, usage));
  lines.push(...blackBoxSection(incidents));
  return renderDocument("Anytime report", state.scenario, [lines]);
}

/** The Slurm job of each node that ran as one (Slurm runtime only; nothing on a local run). */
function jobSection(state: RunState): string[] {
  const rows = state.plan.order.filter((id) => state.nodes[id]?.job);
  if (!rows.length) return [];
  return section(
    "Slurm jobs",
    table(
      ["node", "attempt", "job", "state"],
      rows.map((id) => {
        const job = state.nodes[id]!.job!;
        return [mdInline(id), String(job.attempt), cell(job.id), cell(job.state)];
      }),
    ),
  );
}
