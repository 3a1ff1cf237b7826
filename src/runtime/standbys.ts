/**
 * Standbys: lock-step worker processes started ahead of admission for nodes about to become ready (waiting,
 * every artifact parent running or verified), so a start does not wait for process start-up. A standby reads
 * nothing and writes nothing until its config arrives; one whose command no longer matches is dropped.
 *
 * @module
 */
import type { NodeId, PlanNode } from "../graph/types.ts";
import type { NodeState, RunState } from "../model/state.ts";
import { nodeOf } from "../model/topology.ts";
import type { LocalProc } from "./backend/local.ts";
import { type Command, standbyKey } from "./backend/launch.ts";
import { Lockstep } from "./lockstep.ts";

export interface Standby {
  key: string;
  proc: LocalProc;
  lock: Lockstep;
  audit: string | null;
}

/** What filling the standbys needs of the world: what runs, each node's next command, a process for it. */
export interface StandbyWorld {
  running(id: NodeId): boolean;
  /** The command the node's next attempt would run, or null when it has none. */
  command(state: RunState, node: PlanNode, ns: NodeState): Command | null;
  spawn(node: PlanNode, cmd: Command): LocalProc;
}

/** Statuses a node re-runs from: the ones a standby can be started for. */
const WAITING = new Set(["pending", "stale", "oscillating", "stuck"]);

export class Standbys {
  readonly #map = new Map<NodeId, Standby>();

  get size(): number {
    return this.#map.size;
  }

  /** Takes a node's standby out: the caller uses it, or drops it when its key does not match. */
  take(id: NodeId): Standby | undefined {
    const s = this.#map.get(id);
    this.#map.delete(id);
    return s;
  }

  /** Starts standbys, in plan order, for waiting nodes `ready` says are about to run: at most `max` in all. */
  fill(state: RunState, ready: (id: NodeId) => boolean, w: StandbyWorld, max = 6): void {
    for (const id of state.plan.order) {
      if (this.#map.size >= max) break;
      const n = nodeOf(state.plan, id);
      const ns = state.nodes[n.id]!;
      if (this.#map.has(n.id) || w.running(n.id) || !ns.spawned) continue;
      if (!WAITING.has(ns.status) || !ready(n.id)) continue;
      const cmd = w.command(state, n, ns);
      if (!cmd?.lockstep) continue;
      const proc = w.spawn(n, cmd);
      this.#map.set(n.id, { key: standbyKey(cmd), proc, lock: new Lockstep(proc.spawned), audit: cmd.audit });
    }
  }

  /** Ends a standby that will not be used. */
  async drop(s: Standby): Promise<void> {
    await s.lock.close();
    await s.proc.drop(200, "(standby)");
  }

  /** Ends every standby. */
  async close(): Promise<void> {
    const all = [...this.#map.values()];
    this.#map.clear();
    await Promise.all(all.map((s) => this.drop(s)));
  }
}
