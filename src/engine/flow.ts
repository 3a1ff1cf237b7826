/**
 * FREE and FLOW: reclaim the slots of nodes that stopped running; act on operator requests and fire
 * engine-side faults (reopen, taint); deliver checkpoint streams into reactive inboxes; ask reactive nodes
 * to finish once their sources are done; grow spawn_only nodes by graph surgery; mark branches the answer
 * has superseded (a running one is killed at its next checkpoint, one not yet started never starts).
 *
 * @module
 */
import type { NodeId } from "../graph/types.ts";
import type { Observations } from "../model/observe.ts";
import { TERMINAL } from "../model/state.ts";
import { children, nodeOf, parents } from "../model/topology.ts";
import type { Tx } from "../model/tx.ts";
import * as sup from "../overwatch/supervisor.ts";
import { answered } from "../overwatch/verdict.ts";
import { halve, siblings } from "./sweep.ts";

export function free(tx: Tx): void {
  for (const slot of ["gpu", "cpu"] as const) {
    for (const id of tx.state.slots[slot].held) {
      if (tx.state.nodes[id]!.status !== "running") tx.emit({ e: "slot", node: id, slot, op: "free" });
    }
  }
}

function allGreen(tx: Tx): boolean {
  return Object.values(tx.state.nodes).every((n) => !n.spawned || n.status === "verified");
}

export function flow(tx: Tx, obs: Observations): void {
  for (const r of obs.requests) {
    tx.emit({ e: "request", request: r });
    const ns = tx.state.nodes[r.node];
    if (!ns?.spawned) continue;
    sup.invalidate(tx, r.node, r.op, { reason: "operator", note: r.reason });
  }
  tx.state.faults.forEach((f, index) => {
    if (f.fired || (f.kind !== "reopen" && f.kind !== "taint")) return;
    const when = f.spec.when;
    const due = when === "green" ? allGreen(tx) : when === tx.tick;
    if (!due) return;
    tx.emit({ e: "fault", index, kind: f.kind, node: f.node });
    sup.invalidate(tx, f.node, f.kind, { reason: "fault" });
  });
  for (const ev of [...tx.events]) {
    if (ev.e !== "ckpt") continue;
    for (const to of children(tx.state, ev.node, "stream")) {
      const st = tx.state.nodes[to]!.status;
      if (st !== "pending" && st !== "running" && st !== "stale") continue;
      tx.emit({ e: "stream", from: ev.node, to, step: ev.step, file: ev.file });
    }
  }
  halve(tx);
  for (const id of tx.state.plan.order) {
    const ns = tx.state.nodes[id]!;
    if (nodeOf(tx.state.plan, id).kind !== "reactive" || ns.status !== "running" || ns.finishing) continue;
    const sources = parents(tx.state, id, "stream");
    if (ns.inbox.length === 0 && sources.every((s) => TERMINAL.has(tx.state.nodes[s]!.status))) {
      tx.emit({ e: "note", node: id, set: { finishing: true, finishAt: tx.tick } });
    }
  }
  for (const inc of [...tx.incidents]) {
    if (inc.ladder === "graph_surgery") continue;
    for (const n of tx.state.plan.nodes) {
      if (!n.spawn_only || tx.state.nodes[n.id]!.spawned || !n.spawn_on.includes(inc.type)) continue;
      sup.spawn(tx, n.id, { type: inc.type, node: inc.node });
    }
  }
  supersede(tx);
}

/** Once the question is answered, other training branches have no reason to exist. */
function supersede(tx: Tx): void {
  const answer = answered(tx.state);
  if (!answer) return;
  for (const n of tx.state.plan.nodes) {
    const ns = tx.state.nodes[n.id]!;
    if (n.id === answer || n.kind !== "long" || !ns.spawned || siblings(tx.state.plan, n.id, answer)) {
      continue;
    }
    if (n.role !== "train" && n.role !== "ablation") continue;
    if (ns.status === "running" && !ns.killAtCkpt) {
      tx.emit({ e: "note", node: n.id, set: { killAtCkpt: "SUPERSEDED_KILL" } });
    } else if (ns.status === "pending" || ns.status === "stale") {
      sup.supersede(tx, n.id, {
        ckpt: null,
        step: ns.step,
        best_dev: ns.best,
        answered_by: answer,
        freed: null,
        started: false,
      });
    }
  }
}

/** Stream events a reactive node should (re)evaluate from scratch: every checkpoint of its sources. */
export function streamHistory(tx: Tx, id: NodeId): { from: NodeId; step: number; file: string }[] {
  return parents(tx.state, id, "stream").flatMap((s) =>
    tx.state.nodes[s]!.ckpts.map((c) => ({ from: s, step: c.step, file: c.file }))
  );
}
