/**
 * The tree's overwatch: the one place tree mode turns what was observed about an executor into a verdict
 * on the node and the incidents that record it, with the same incident types, rungs and typed evidence as
 * the graph path (so narration, report and dashboard read them unchanged). Pure: observations in, verdict
 * and incidents out.
 *
 * Order of judgement: a sandbox escape first (blame, whatever else happened), then a hang (restarted once —
 * HUNG_MAX_RESTARTS — then fused), a spent wall budget, the code's own failure (a lesson, no incident:
 * failing is what hypotheses do), a crash, an artifact changed while it ran, and last the claim — refused
 * when missing, better than the best fold the executor logged, or more than ACCEPT_EPS away from Arrow's
 * own recomputation. Deterministic code that crashed or lied would do so again, so those are fused at once.
 *
 * @module
 */
import type { EscapeAttempt } from "../model/evidence.ts";
import type { Incident, IncidentOf } from "../model/state.ts";
import { incidentOf } from "../overwatch/incident.ts";
import { RUNG } from "../overwatch/ladder.ts";
import { ACCEPT_EPS, HUNG_MAX_RESTARTS, K_FREEZE } from "../thresholds.ts";
import type { Escape, ExecResult, Hang, Overrun, TreeNode } from "./types.ts";

export type Judgement =
  | { kind: "evaluated"; folds: number[]; claimed: number }
  | { kind: "failed"; lesson: string }
  | { kind: "retry" };

export interface JudgeContext {
  tick: number;
  /** How often an executor is observed (its hang window is K_FREEZE of these). */
  observeMs: number;
  metric: string;
  sign: 1 | -1;
}

/**
 * A silent child's HUNG_RESTART evidence, in the graph path's shape: the watcher's hang (runtime/proc/watch.ts)
 * after K_FREEZE observations of `ctx.observeMs`; a child has no checkpoint to resume from.
 */
function hungEvidence(ctx: JudgeContext, hang: Hang, restarts: number, max: number) {
  return {
    step: hang.step,
    best_dev: null,
    stalled_ticks: K_FREEZE,
    observe_every: `${ctx.observeMs / 1000}s`,
    silent_from_start: hang.silent_from_start,
    restarts,
    max_restarts: max,
    best_ckpt: null,
    resume_from: null,
  };
}

function incident<T extends Incident["type"]>(
  ctx: JudgeContext,
  node: TreeNode,
  type: T,
  evidence: IncidentOf<T>["evidence"],
  ladder = RUNG[type],
): Incident {
  return incidentOf({ tick: ctx.tick, node: node.id, laps: 0, tokens: node.tokens }, type, evidence, ladder);
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
const fmt = (x: number) => x.toFixed(4);

function refuse(
  ctx: JudgeContext,
  node: TreeNode,
  r: ExecResult,
  problem: string,
  extra: { observed_best?: number; exit?: number | null; stderr?: string[] } = {},
): Incident {
  return incident(ctx, node, "FALSE_COMPLETION", {
    lap: 1,
    lap_budget: 1,
    via: null,
    acceptance: ["recompute", `nodes/${node.id}/artifact.json`],
    exit_code: extra.exit ?? null,
    stdout: "",
    stderr: (extra.stderr ?? []).join("\n"),
    worker_exit: r.exit,
    claimed_score: r.claim?.score ?? null,
    previous_claim: null,
    required_gain: 0,
    problem,
    ...(extra.observed_best !== undefined ? { observed_best: extra.observed_best } : {}),
  }, "fuse");
}

/**
 * A child that must not hang — Arrow's recomputation of a claim, or the merge gate's prediction — went
 * silent or ran past its budget. Its executor already finished, so there is no restart: the node is fused
 * with the incident that names the step (HUNG_RESTART, or BUDGET_TRIP), and the loop goes on.
 */
export function stoppedChild(
  ctx: JudgeContext,
  node: TreeNode,
  where: "the recomputation" | "the merge gate",
  stop: { hung?: Hang | null; over_budget?: Overrun | null },
): { lesson: string; incidents: Incident[] } | null {
  if (stop.hung) {
    const inc = incident(ctx, node, "HUNG_RESTART", hungEvidence(ctx, stop.hung, 0, 0), "fuse");
    const lesson = `${where} went silent for ${
      Math.round(stop.hung.silent_ms / 1000)
    } s after ${stop.hung.step} progress line(s) and was stopped`;
    return { lesson, incidents: [inc] };
  }
  if (stop.over_budget) {
    const { limit_ms, used_ms } = stop.over_budget;
    const inc = incident(
      ctx,
      node,
      "BUDGET_TRIP",
      { budget: "wall", limit: limit_ms, used: used_ms },
      "fuse",
    );
    return { lesson: `${where} ran past its wall budget of ${limit_ms / 1000} s`, incidents: [inc] };
  }
  return null;
}

/** A SCOPE_VIOLATION blaming `node`'s code for what a sandbox layer saw it try outside its lane — while its
 * executor ran, or later, when the gate, the final test or the refit ran its artifact. */
export function scopeViolation(ctx: JudgeContext, node: TreeNode, escapes: readonly Escape[]): Incident {
  const attempts: EscapeAttempt[] = escapes.map((e) => ({
    path: e.path,
    op: e.op,
    stopped_by: e.stopped_by,
    ...(e.seen_in ? { seen_in: e.seen_in } : {}),
    reverted: false,
  }));
  return incident(ctx, node, "SCOPE_VIOLATION", {
    writer: node.id,
    scope: `nodes/${node.id}`,
    paths: [...new Set(escapes.map((e) => e.path))],
    attempts,
    blocked: [node.id],
  });
}

/** The verdict on one executor attempt and the incidents it leaves. */
export function judge(
  ctx: JudgeContext,
  node: TreeNode,
  r: ExecResult,
): { j: Judgement; incidents: Incident[] } {
  if (r.escapes.length) {
    const inc = scopeViolation(ctx, node, r.escapes);
    const what = r.escapes.slice(0, 3).map((e) => `${e.op} ${e.path}`).join(", ");
    return {
      j: { kind: "failed", lesson: `its code reached outside its lane (${what}) and was stopped` },
      incidents: [inc],
    };
  }
  if (r.hung) {
    const again = node.attempt > HUNG_MAX_RESTARTS;
    const inc = incident(ctx, node, "HUNG_RESTART", {
      ...hungEvidence(ctx, r.hung, node.attempt - 1, HUNG_MAX_RESTARTS),
      ...(again ? { recurrence: true as const } : {}),
    }, again ? "fuse" : "bounce");
    const lesson =
      `the executor went silent for ${Math.round(r.hung.silent_ms / 1000)} s after ${r.hung.step} fold(s)` +
      (again ? ", twice — it was stopped" : "");
    return { j: again ? { kind: "failed", lesson } : { kind: "retry" }, incidents: [inc] };
  }
  if (r.over_budget) {
    const inc = incident(ctx, node, "BUDGET_TRIP", {
      budget: "wall",
      limit: r.over_budget.limit_ms,
      used: r.over_budget.used_ms,
    }, "fuse");
    return {
      j: { kind: "failed", lesson: `it ran past its wall budget of ${r.over_budget.limit_ms / 1000} s` },
      incidents: [inc],
    };
  }
  if (r.lesson !== null) return { j: { kind: "failed", lesson: r.lesson }, incidents: [] };
  if (r.exit !== 0) {
    const inc = incident(ctx, node, "FALSE_COMPLETION", {
      lap: 1,
      lap_budget: 1,
      via: null,
      acceptance: [],
      exit_code: null,
      stdout: "",
      stderr: r.stderr_tail.join("\n"),
      worker_exit: r.exit,
      claimed_score: null,
      previous_claim: null,
      required_gain: 0,
      crash: { exit_code: r.exit, signal: r.signal, stderr_tail: r.stderr_tail },
    }, "fuse");
    const how = r.signal ? `was killed by ${r.signal}` : `exited with ${r.exit}`;
    return {
      j: { kind: "failed", lesson: `the executor ${how}: ${r.stderr_tail.at(-1) ?? "no message"}` },
      incidents: [inc],
    };
  }
  if (r.artifact_changed) {
    const p = "its artifact changed while it ran, so the claim is not about the hypothesis";
    return { j: { kind: "failed", lesson: p }, incidents: [refuse(ctx, node, r, p)] };
  }
  const claimed = r.claim?.score ?? null;
  if (claimed === null) {
    const p = `its results.json is unusable: ${r.claim?.problem ?? "missing"}`;
    return { j: { kind: "failed", lesson: p }, incidents: [refuse(ctx, node, r, p)] };
  }
  if (r.observed_best !== null && ctx.sign * (claimed - r.observed_best) > ACCEPT_EPS) {
    const p = `it claimed ${fmt(claimed)}, better than the best fold it logged (${fmt(r.observed_best)})`;
    return {
      j: { kind: "failed", lesson: p },
      incidents: [refuse(ctx, node, r, p, { observed_best: r.observed_best })],
    };
  }
  const rec = r.recomputed;
  const stopped = rec && "problem" in rec && rec.hung
    ? stoppedChild(ctx, node, "the recomputation", rec)
    : null;
  if (stopped) return { j: { kind: "failed", lesson: stopped.lesson }, incidents: stopped.incidents };
  if (rec === null || "problem" in rec) {
    const p = `Arrow could not recompute its score: ${rec?.problem ?? "not run"}`;
    const extra = rec ? { exit: rec.exit, stderr: rec.stderr_tail } : {};
    return { j: { kind: "failed", lesson: p }, incidents: [refuse(ctx, node, r, p, extra)] };
  }
  const recomputed = mean(rec.folds);
  if (Math.abs(claimed - recomputed) > ACCEPT_EPS) {
    const p = `it claimed dev ${ctx.metric} ${fmt(claimed)}, Arrow recomputed ${
      fmt(recomputed)
    } from its artifact`;
    return { j: { kind: "failed", lesson: p }, incidents: [refuse(ctx, node, r, p, { exit: 0 })] };
  }
  return { j: { kind: "evaluated", folds: rec.folds, claimed }, incidents: [] };
}
