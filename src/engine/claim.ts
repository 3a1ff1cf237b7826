/**
 * A worker ended: judge its completion claim through every gate, in a fixed order — did it die, is its
 * manifest readable and complete, does the acceptance command pass, does the claim stay within what Arrow
 * itself observed, is it comparable — and verify it only when all agree. A verification that freezes the
 * comparability tuple re-checks everything verified before it.
 *
 * @module
 */
import type { PlanNode } from "../graph/types.ts";
import { deviations, gated, TUPLE_ROLES, tupleOf } from "../gates/comparability.ts";
import type { Deviation } from "../gates/comparability.ts";
import type { DoneObs } from "../model/observe.ts";
import type { Tuple } from "../model/state.ts";
import { ancestors, nodeOf } from "../model/topology.ts";
import type { Tx } from "../model/tx.ts";
import * as sup from "../overwatch/supervisor.ts";
import { ACCEPT_EPS, gain, SCORE_GRID } from "../thresholds.ts";

const finite = (x: unknown): x is number => typeof x === "number" && Number.isFinite(x);

export function claim(tx: Tx, node: PlanNode, done: DoneObs): void {
  const ns = tx.state.nodes[node.id]!;
  const m = done.manifest;
  const score = m && finite(m.score) ? m.score : null;
  const base: sup.Claim = {
    argv: done.accept?.argv ?? [...node.acceptance],
    code: done.accept?.code ?? null,
    stdout: done.accept?.stdout ?? "",
    stderr: done.accept?.stderr ?? "",
    workerExit: done.exit,
    score,
  };
  const refuse = (problem: string, extra: Partial<sup.Claim> = {}) =>
    sup.falseCompletion(tx, node.id, { ...base, problem, ...extra });

  if (done.crash) {
    const c = done.crash;
    const how = c.signal
      ? `killed by ${c.signal}`
      : c.exit_code === null
      ? "it could not start"
      : `exit ${c.exit_code}`;
    return refuse(`the worker crashed (${how}) without a claim`, { crash: c });
  }
  if (!m) return refuse(done.manifestError ?? "results.json missing");
  if (done.manifestError) return refuse(done.manifestError);
  if (m.node !== node.id) {
    return refuse(`results.json names node ${JSON.stringify(m.node)}, not "${node.id}"`);
  }
  if (TUPLE_ROLES.has(node.role) && score === null) {
    return refuse(`results.json claims no score, and a node of role ${node.role} must (a finite number)`);
  }
  const tuple = tupleOf(m) ?? null;
  const freezes = node.role === "harness" ||
    (node.role === "baseline" && !tx.state.plan.nodes.some((n) => n.role === "harness"));
  if (node.role === "harness" && !tuple) return refuse("harness manifest lacks the comparability tuple");
  // Comparability first: a result on other data or another protocol is withheld, whatever it scores.
  const frozen = tx.state.frozen;
  // The freezer's own inputs (protocol, data) are what the tuple was made from, not results held to it.
  const held = frozen && feedsFreezer(tx, node.id) ? null : gated(node, m);
  if (frozen && held) {
    const dev = deviations(frozen, [held])[0];
    if (dev && !(freezes && tuple)) return sup.comparabilityBlock(tx, dev, node.id);
  }
  if (done.accept && done.accept.code !== 0) return refuse(`acceptance exited ${done.accept.code}`);
  const dir = tx.state.plan.protocol.direction;
  const observed = node.kind === "long" ? ns.best : done.observedBest ?? null;
  if (observed !== null && score !== null) {
    // A claim better than anything the node logged is not backed by its own trajectory.
    if (gain(observed, score, dir) > Math.round(ACCEPT_EPS * SCORE_GRID)) {
      return refuse(
        `claims ${score}, better than the best ${tx.state.plan.protocol.metric} Arrow observed in ` +
          `metrics.jsonl (${observed}) by more than ACCEPT_EPS`,
        {
          observedBest: observed,
          ...(done.metricsUnread ? { unreadMetricsBytes: done.metricsUnread } : {}),
          ...(done.malformedLines ? { malformedMetricsLines: done.malformedLines } : {}),
        },
      );
    }
  } else if (
    observed === null && score !== null && node.kind === "long" && node.acceptance[0] === "@manifest"
  ) {
    // Under @manifest nothing recomputes the score: a long node must have logged the trajectory it claims.
    return refuse(
      `claims ${score} but wrote no ${tx.state.plan.protocol.metric} line in metrics.jsonl; under @manifest a ` +
        "long node's score must be backed by its own trajectory",
    );
  }
  const old = frozen;
  const freeze = freezes && tuple ? tuple : null;
  sup.verify(tx, node.id, m, freeze);
  if (freeze && !(old && sameTuple(old, freeze))) recheck(tx, node.id, old);
}

function sameTuple(a: Tuple, b: Tuple): boolean {
  return a.data_hash === b.data_hash && a.split_hash === b.split_hash &&
    a.protocol_version === b.protocol_version && a.seed === b.seed;
}

/**
 * The tuple was (re)frozen by `by`: everything verified so far is held to it. A result that matched the old
 * tuple is outdated and re-runs; one that never matched is a deviator, blamed on its own.
 */
function recheck(tx: Tx, by: string, old: Tuple | null): void {
  const frozen = tx.state.frozen!;
  const outdated: string[] = [];
  const devs: Deviation[] = [];
  for (const id of tx.state.plan.order) {
    const ns = tx.state.nodes[id]!;
    if (id === by || ns.status !== "verified" || !ns.manifest || feedsFreezer(tx, id)) continue;
    const held = gated(nodeOf(tx.state.plan, id), ns.manifest);
    if (!held) continue;
    const dev = deviations(frozen, [held])[0];
    if (!dev) continue;
    if (old && deviations(old, [held]).length === 0) outdated.push(id);
    else devs.push(dev);
  }
  if (outdated.length || devs.length) sup.refreeze(tx, by, outdated, devs);
}

/** True when `id` is an artifact ancestor of the node that froze the tuple. */
export function feedsFreezer(tx: Tx, id: string): boolean {
  const by = tx.state.frozen?.by;
  return by !== undefined && ancestors(tx.state, by).includes(id);
}
