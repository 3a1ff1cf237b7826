/**
 * ADMIT: ready nodes (every artifact parent verified, incoming manifests comparable) go into free slots in
 * plan order. Reactive nodes need something to react to: a checkpoint, or sources that are all done.
 *
 * @module
 */
import { deviations, type Gated, gated } from "../gates/comparability.ts";
import type { RunState } from "../model/state.ts";
import { TERMINAL } from "../model/state.ts";
import { nodeOf, parents, slotOf } from "../model/topology.ts";
import type { Tx } from "../model/tx.ts";
import * as sup from "../overwatch/supervisor.ts";
import { feedsFreezer } from "./claim.ts";
import { free, streamHistory } from "./flow.ts";

const WAITING = new Set(["pending", "stale", "oscillating", "stuck"]);

/** True when a node could start now if a slot were free. */
export function ready(tx: Tx, id: string): boolean {
  const ns = tx.state.nodes[id]!;
  if (!ns.spawned || !WAITING.has(ns.status)) return false;
  if (!parents(tx.state, id, "artifact").every((p) => tx.state.nodes[p]!.status === "verified")) return false;
  if (nodeOf(tx.state.plan, id).kind !== "reactive") return true;
  const sources = parents(tx.state, id, "stream");
  return streamHistory(tx, id).length > 0 || sources.every((s) => TERMINAL.has(tx.state.nodes[s]!.status));
}

/**
 * A user's program running without a sandbox layer (command and agent workers of an unconfined run): it could
 * write into any scope, and a write into a running sibling's scope would pass for the sibling's own.
 */
export function unconfined(state: RunState, id: string): boolean {
  if (!state.unconfined) return false;
  const t = nodeOf(state.plan, id).worker?.type;
  return t === "command" || t === "agent";
}

export function admit(tx: Tx): void {
  // FLOW may have stopped running nodes (a reopen, a taint): their slots are free for this admission.
  free(tx);
  for (const id of tx.state.plan.order) {
    if (!ready(tx, id)) continue;
    const node = nodeOf(tx.state.plan, id);
    if (tx.state.unconfined) {
      // An unconfined program runs alone: every scope but its own is then at rest, where the guard sees any
      // foreign change. It waits for the running to end, and nothing later in plan order overtakes it.
      const running = tx.state.plan.order.filter((n) => tx.state.nodes[n]!.status === "running");
      if (running.some((n) => unconfined(tx.state, n))) return;
      if (unconfined(tx.state, id) && running.length) return;
    }
    const frozen = tx.state.frozen;
    if (frozen) {
      // Every deviating input is blamed on its own; the node waits for none of them.
      const incoming = parents(tx.state, id, "artifact").flatMap((p) => {
        const m = feedsFreezer(tx, p) ? null : tx.state.nodes[p]!.manifest;
        const g = m ? gated(nodeOf(tx.state.plan, p), m) : null;
        return g ? [g] : [];
      }) as Gated[];
      const devs = deviations(frozen, incoming);
      for (const dev of devs) {
        if (tx.state.nodes[dev.node]!.status === "verified") sup.comparabilityBlock(tx, dev, id);
      }
      if (devs.length) continue;
    }
    const slot = slotOf(node);
    if (slot && tx.state.slots[slot].held.length >= tx.state.slots[slot].total) continue;
    sup.admit(tx, id, streamHistory(tx, id));
    if (slot) tx.emit({ e: "slot", node: id, slot, op: "hold" });
  }
}

/** True when a node waits to run and every artifact parent is at least on its way (not blocked or fused). */
export function soonReady(state: RunState, id: string): boolean {
  const ns = state.nodes[id]!;
  if (!ns.spawned || !WAITING.has(ns.status)) return false;
  return parents(state, id, "artifact").every((p) =>
    !TERMINAL.has(state.nodes[p]!.status) || state.nodes[p]!.status === "verified"
  );
}

/** True when nothing runs and nothing can be admitted: the run has quiesced. */
export function quiescent(tx: Tx): boolean {
  return Object.values(tx.state.nodes).every((n) => n.status !== "running") &&
    !tx.state.plan.order.some((id) => ready(tx, id));
}
