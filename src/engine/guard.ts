/**
 * Out-of-lane writes, from what the sandbox layers saw (escapes of running nodes) and what the fingerprint
 * guard saw (a scope that changed while its owner was not running). A write a sandbox layer attributes is
 * blamed on its writer and reverted. An unattributed change to a verified scope, while every running node
 * was confined, came from outside the run: the world changed, so the node's result is stale (its closure
 * re-runs; a changed harness taints). Anything else is reverted and reported, blaming no one, and the
 * evidence says why the writer could not be named.
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
  const unconfined = obs.unconfined.filter((n) => tx.state.nodes[n]?.status === "running");
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
    // Each irreparable change by an unnamed writer is counted: past ACCEPT_MAX_LAPS the victim is blocked
    // rather than re-run, so a writer that overwrites it on every re-run cannot keep the run cycling.
    const times = lost.length && owner.status === "verified" ? owner.tampered + 1 : 0;
    if (times) tx.emit({ e: "note", node: g.owner, set: { tampered: times } });
    const fused = times >= ACCEPT_MAX_LAPS;
    if (loose.length) {
      const attempts = loose.map((path) => ({
        path,
        op: "write",
        stopped_by: null,
        reverted: restorable.has(path),
      }));
      sup.scopeViolation(tx, null, g.owner, attempts, {
        unattributed: unconfined.length
          ? `${unconfined.join(", ")} ran without a sandbox layer (--unsandboxed), so no layer saw who wrote`
          : "no sandbox layer saw the write, and its owner was not running",
        irreparable: lost,
        ...(times ? { times } : {}),
      });
    }
    if (!fused && irreparable.length && tx.state.nodes[g.owner]!.status === "verified") {
      worldChanged(tx, g.owner, irreparable);
    }
  }
  const basis = new Map<NodeId, string>();
  planFileChecks(tx, obs.planFiles ?? [], byWriter, basis);
  for (const [writer, escapes] of byWriter) {
    const why = basis.get(writer);
    if (tx.state.nodes[writer]!.status === "running") {
      sup.scopeViolation(tx, writer, null, escapes, why ? { basis: why } : {});
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
  basis: Map<NodeId, string>,
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
    const [one] = who;
    if (who.length === 1 && tx.state.nodes[one!]?.status === "running") {
      byWriter.set(one!, [...byWriter.get(one!) ?? [], ...attempts]);
      basis.set(
        one!,
        `${one} was the only program running without a sandbox layer (--unsandboxed) when the plan's ` +
          `files changed; no layer saw the write itself`,
      );
      continue;
    }
    sup.scopeViolation(tx, null, owner, attempts, {
      unattributed: who.length
        ? `${who.join(", ")} ran without a sandbox layer (--unsandboxed); any of them could have written ` +
          `the plan's files, and no layer saw which`
        : "no sandbox layer saw the write into the plan's files",
      irreparable: attempts.filter((e) => !e.reverted).map((e) => e.path),
    });
  }
}

/**
 * A verified scope no longer holds what was verified: its result no longer stands. The harness (or whatever
 * froze the tuple) taints, sparing training; anything else reopens with its closure.
 */
function worldChanged(tx: Tx, owner: NodeId, changed: string[]): void {
  const froze = tx.state.frozen?.by === owner || nodeOf(tx.state.plan, owner).role === "harness";
  sup.invalidate(tx, owner, froze ? "taint" : "reopen", { reason: "scope changed", changed });
}
