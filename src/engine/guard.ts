/**
 * Out-of-lane writes, from what the sandbox layers saw (escapes of running nodes) and what the fingerprint
 * guard saw (a scope that changed while its owner was not running). A write a sandbox layer attributes is
 * blamed on its writer and reverted. An unattributed change to a verified scope, while every running node
 * was confined, came from outside the run: the world changed, so the node's result is stale (its closure
 * re-runs; a changed harness taints). Anything else is reverted and blamed as far as the evidence goes — the
 * same rule for another node's scope as for the plan's files: on the one program that ran unconfined while it
 * changed (unsandboxed command workers run alone, so it is the only one that could have; the evidence says
 * so, `basis`), else on no one, the evidence naming every program that could have (or saying none could).
 *
 * @module
 */
import type { NodeId } from "../graph/types.ts";
import type { EscapeAttempt } from "../model/evidence.ts";
import type { Observations, PlanFileObs } from "../model/observe.ts";
import { nodeOf } from "../model/topology.ts";
import type { Tx } from "../model/tx.ts";
import * as sup from "../overwatch/supervisor.ts";
import { ACCEPT_MAX_LAPS } from "../thresholds.ts";

export function scopeChecks(tx: Tx, obs: Observations): void {
  const byWriter = new Map<NodeId, EscapeAttempt[]>();
  const claimed = new Set<string>();
  for (const id of tx.state.plan.order) {
    for (const e of obs.nodes[id]?.escapes ?? []) {
      const list = byWriter.get(id) ?? [];
      const seen = e.seen_in ? { seen_in: e.seen_in } : {};
      list.push({ path: e.path, op: e.op, stopped_by: e.stopped ? e.via : null, reverted: false, ...seen });
      byWriter.set(id, list);
      claimed.add(e.path);
    }
  }
  // Who was running when the tick began: a writer is blamed even when a victim's re-run demoted it meanwhile
  // (a writer downstream of the scope it overwrote is in that closure), never excused by it.
  const running = new Set(tx.state.plan.order.filter((id) => tx.state.nodes[id]!.status === "running"));
  const unconfined = obs.unconfined.filter((n) => running.has(n));
  // After a resume, the programs running now are not the only ones that could have: no arrow watched.
  const candidates = obs.unwatched ? new Set<NodeId>() : running;
  /** What each writer is blamed for changing though no layer saw it (its `basis`). */
  const basis = new Map<NodeId, string[]>();
  /** Paths blamed on a writer that could not be put back (the victim re-runs). */
  const unrestored = new Set<string>();
  for (const g of obs.guard) {
    const restorable = new Set(g.restorable);
    for (const list of byWriter.values()) {
      for (const e of list) if (g.changed.includes(e.path)) e.reverted = restorable.has(e.path);
    }
    const loose = g.changed.filter((p) => !claimed.has(p));
    if (loose.length && !unconfined.length && tx.state.nodes[g.owner]!.status === "verified") {
      worldChanged(tx, g.owner, loose);
      continue;
    }
    tx.act({ a: "revert", node: g.owner, paths: g.changed.filter((p) => restorable.has(p)) });
    const irreparable = g.changed.filter((p) => !restorable.has(p));
    const owner = tx.state.nodes[g.owner]!;
    const lost = irreparable.filter((p) => loose.includes(p));
    const attempts = loose.map((path) => ({
      path,
      op: "write",
      stopped_by: null,
      reverted: restorable.has(path),
    }));
    const sole = soleWriter(candidates, unconfined.filter((n) => n !== g.owner));
    if (loose.length && sole) {
      byWriter.set(sole, [...byWriter.get(sole) ?? [], ...attempts]);
      for (const p of lost) unrestored.add(p);
      addBasis(basis, sole, `nodes/${nodeOf(tx.state.plan, g.owner).scope}`);
    }
    // Each irreparable change by an unnamed writer is counted: past ACCEPT_MAX_LAPS the victim is blocked
    // rather than re-run, so a writer that overwrites it on every re-run cannot keep the run cycling.
    const times = lost.length && !sole && owner.status === "verified" ? owner.tampered + 1 : 0;
    if (times) tx.emit({ e: "note", node: g.owner, set: { tampered: times } });
    const fused = times >= ACCEPT_MAX_LAPS;
    if (loose.length && !sole) {
      sup.scopeViolation(tx, null, g.owner, attempts, {
        unattributed: unnamed(
          unconfined,
          `nodes/${nodeOf(tx.state.plan, g.owner).scope}`,
          !!obs.unwatched,
          "no sandbox layer saw the write, and its owner was not running",
        ),
        irreparable: lost,
        ...(times ? { times } : {}),
      });
    }
    if (!fused && irreparable.length && tx.state.nodes[g.owner]!.status === "verified") {
      worldChanged(tx, g.owner, irreparable);
    }
  }
  planFileChecks(tx, obs.planFiles ?? [], byWriter, basis, candidates, !!obs.unwatched);
  for (const [writer, escapes] of byWriter) {
    const whats = basis.get(writer);
    const why = whats ? basisOf(writer, whats) : null;
    if (running.has(writer)) {
      const irreparable = escapes.filter((e) => unrestored.has(e.path)).map((e) => e.path);
      sup.scopeViolation(tx, writer, null, escapes, { ...(why ? { basis: why } : {}), irreparable });
    }
  }
}

/**
 * The plan's evaluator or acceptance files changed (SENSE put them back where it could), or — in an
 * unconfined run — anything in the plan's directory. A write a sandbox layer attributed is its writer's.
 * Any other is blamed as far as the evidence goes: on the one unconfined program that could have made it
 * (the evidence says so, `basis`); else reported on the node that owns the protocol (the files judge every
 * claim), naming every program that could have, or saying none could. Whether a claim may stand is SENSE's:
 * it refuses every claim while a file it could not put back is different.
 */
function planFileChecks(
  tx: Tx,
  changes: readonly PlanFileObs[],
  byWriter: Map<NodeId, EscapeAttempt[]>,
  basis: Map<NodeId, string[]>,
  blamable: ReadonlySet<NodeId>,
  unwatched: boolean,
): void {
  const loose = new Map<string, { who: NodeId[]; attempts: EscapeAttempt[] }>();
  for (const c of changes) {
    const seen = [...byWriter.values()].flat().filter((e) => e.path === c.path);
    for (const e of seen) e.reverted = c.restored;
    if (seen.length) continue;
    const who = c.during ?? [];
    const group = loose.get(who.join(",")) ?? { who, attempts: [] };
    group.attempts.push({ path: c.path, op: c.op ?? "write", stopped_by: null, reverted: c.restored });
    loose.set(who.join(","), group);
  }
  const plan = tx.state.plan;
  const owner = plan.nodes.find((n) => n.role === "protocol")?.id ?? plan.order[0]!;
  for (const { who, attempts } of loose.values()) {
    const one = soleWriter(blamable, who);
    if (one) {
      byWriter.set(one, [...byWriter.get(one) ?? [], ...attempts]);
      addBasis(basis, one, "the plan's files");
      continue;
    }
    sup.scopeViolation(tx, null, owner, attempts, {
      unattributed: unnamed(
        who,
        "the plan's files",
        unwatched,
        "no sandbox layer saw the write into the plan's files",
      ),
      irreparable: attempts.filter((e) => !e.reverted).map((e) => e.path),
    });
  }
}

/** The one program that could have made a change no layer saw: the only unconfined one running, or null. */
function soleWriter(blamable: ReadonlySet<NodeId>, candidates: readonly NodeId[]): NodeId | null {
  const [one] = candidates;
  return candidates.length === 1 && blamable.has(one!) ? one! : null;
}

/** Notes that `writer` is blamed for a change of `what` no layer saw (beside what else it is blamed for). */
function addBasis(basis: Map<NodeId, string[]>, writer: NodeId, what: string): void {
  const was = basis.get(writer) ?? [];
  if (!was.includes(what)) basis.set(writer, [...was, what]);
}

/** Why a writer is blamed for changes of `whats` no layer saw: it was the one program that could have. */
function basisOf(writer: NodeId, whats: readonly string[]): string {
  const what = whats.length > 1 ? `${whats.slice(0, -1).join(", ")} and ${whats.at(-1)}` : whats[0];
  return `${writer} was the only program running without a sandbox layer (--unsandboxed) when ${what} ` +
    `changed; no layer saw the write itself`;
}

/**
 * Why a change of `what` is blamed on no one: several unconfined programs (`who`) could have made it, or none
 * (`none` says why), or it was first seen on a resume, when no arrow had watched since the last look.
 */
function unnamed(who: readonly NodeId[], what: string, unwatched: boolean, none: string): string {
  const ran = `${who.join(", ")} ran without a sandbox layer (--unsandboxed)`;
  if (unwatched) {
    return `${what} changed while no arrow watched (found on a resume), so no program can be named` +
      (who.length ? `; ${ran} since` : "");
  }
  return who.length ? `${ran}; any of them could have written ${what}, and no layer saw which` : none;
}

/**
 * A verified scope no longer holds what was verified: its result no longer stands. The harness (or whatever
 * froze the tuple) taints, sparing training; anything else reopens with its closure.
 */
function worldChanged(tx: Tx, owner: NodeId, changed: string[]): void {
  const froze = tx.state.frozen?.by === owner || nodeOf(tx.state.plan, owner).role === "harness";
  sup.invalidate(tx, owner, froze ? "taint" : "reopen", { reason: "scope changed", changed });
}
