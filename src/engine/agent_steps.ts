/**
 * DECIDE for an agent node: its recorded steps are its observations (each step one, however many fall in
 * a tick), judged by the scope detectors before any claim, so an agent that spins or oscillates is called
 * that even when it reached its step limit and exited inside one tick.
 *
 * @module
 */
import type { PlanNode } from "../graph/types.ts";
import type { BudgetEvidence } from "../model/evidence.ts";
import type { NodeObs } from "../model/observe.ts";
import type { Tx } from "../model/tx.ts";
import { freshTrack, spunOut, type StepFinding, trackSteps } from "../overwatch/agent_steps.ts";
import * as sup from "../overwatch/supervisor.ts";

/** True for a node worked by Arrow's own agent loop, which records its steps (llm/steps.ts). */
export function stepsObserved(node: PlanNode): boolean {
  return node.kind === "fast" && node.worker?.type === "agent";
}

/** An agent node's frozen run of steps at the moment its token budget ran out, if it was in one. */
export function spinningAt(tx: Tx, node: PlanNode): BudgetEvidence["spinning"] | undefined {
  const ns = tx.state.nodes[node.id]!;
  const a = ns.agent;
  if (!stepsObserved(node) || !a || a.attempt !== ns.attempt || ns.frozen < 1) return undefined;
  return { frozen_steps: ns.frozen, steps: { from: a.from, to: a.step }, tokens_burned: a.tokens };
}

export function trackAgent(tx: Tx, node: PlanNode, o: NodeObs): void {
  const ns = tx.state.nodes[node.id]!;
  const track = ns.agent?.attempt === ns.attempt ? ns.agent : freshTrack(ns.attempt, ns.trail);
  const r = trackSteps({ fp: ns.fp, trail: ns.trail, frozen: ns.frozen }, track, o.steps ?? []);
  if (r.track.step !== track.step) {
    tx.emit({
      e: "note",
      node: node.id,
      set: { fp: r.scope.fp, trail: r.scope.trail, frozen: r.scope.frozen, agent: r.track },
    });
  }
  const end = o.stepEnd;
  const taken = end ? { steps_taken: end.steps } : {};
  const scope = `nodes/${node.scope}`;
  let finding: StepFinding | null = r.finding;
  let limit = false;
  // Out of steps with nothing changed at the end: the exit is the step limit of a spinner, not a crash.
  if (!finding && o.done && end?.end === "max_steps") {
    finding = spunOut(r.scope, r.track);
    limit = finding !== null;
  }
  if (!finding) return;
  if (finding.kind === "oscillation") {
    return sup.bounce(tx, node.id, {
      type: "OSCILLATION_TRIP",
      evidence: { trail: finding.trail, scope, agent_steps: finding.steps },
    });
  }
  sup.bounce(tx, node.id, {
    type: "BUDGET_TRIP",
    evidence: {
      frozen_steps: finding.frozen,
      steps: { from: finding.from, to: finding.to },
      tokens_burned: finding.tokens,
      cost: finding.cost,
      fingerprint: finding.fp,
      tokens_total: tx.state.nodes[node.id]!.tokens,
      scope,
      ...(limit ? { stopped_by: "step limit" as const } : {}),
      ...taken,
    },
  });
}
