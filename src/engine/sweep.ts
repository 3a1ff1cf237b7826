/**
 * Successive halving over a sweep's configurations, decided from world-state the engine observed itself:
 * the checkpoints of each configuration and the best dev value Arrow computed from its metrics.jsonl up to
 * each one (never from what the ranker node writes — that is the people's copy of the ranking).
 *
 * The rules:
 *
 * 1. **Score at a rung.** A configuration has *reached* rung r once it has a checkpoint at step ≥ r; its score
 *    there is best_dev as of the first such checkpoint (a checkpoint without a metric scores last).
 * 2. **Who is ranked.** Every configuration that reached r, except those out for a failure of their own
 *    (killed — hung twice, fused for false completion, over budget —, blocked, plateaued): they count as
 *    never tried. Configurations halving already stopped stay ranked, so a rung decision depends on the
 *    scores at that rung only, as in synchronous successive halving.
 * 3. **How many stay.** keep = max(min_keep, ⌊n / η⌋) of the n ranked at r (n = 3, η = 3 keeps 1; n = 6
 *    keeps 2). Better score first; ties on the score grid go to the earlier configuration (smaller id). A
 *    configuration is never cut in favour of stopped ones only: some configuration ranked above it must still
 *    be able to answer (running, waiting or verified), so a sweep never halves itself out of existence when
 *    the configurations that won a rung fail later.
 * 4. **Kill at a checkpoint boundary.** A running configuration outside the top `keep` of any rung it has
 *    reached is killed at its next checkpoint boundary — the first tick that shows it a new checkpoint, which
 *    is the rung's own checkpoint when it is already out on arrival — as SUPERSEDED_KILL, with the lowest such
 *    rung, its rank, keep, n and the scores that decided it (the top `keep` and its own) as evidence. The
 *    ranking is re-read at every boundary, so later arrivals can still push a survivor out (or, when a
 *    configuration above it fails, keep it in). Its gpu is freed at once, so a queued configuration takes it
 *    in the same tick.
 * 5. **Rungs nobody reaches** decide nothing; a configuration that finishes before a rung is judged by its
 *    gates like any method. Crashes and hangs are handled as for any long node (FALSE_COMPLETION,
 *    HUNG_RESTART), and a configuration that is out by them leaves the ranking (rule 2).
 * 6. **The answer.** Configurations are training methods: a sibling's answer never supersedes its siblings
 *    (halving decides them), an answer from outside the sweep supersedes the sweep as any branch, and the
 *    verdict rests on the best verified, comparable configuration that beats the baseline.
 *
 * @module
 */
import { type SweepGroup, sweepOf } from "../graph/sweep.ts";
import type { Direction, NodeId, Plan } from "../graph/types.ts";
import type { NodeState, RunState } from "../model/state.ts";
import type { Tx } from "../model/tx.ts";
import * as sup from "../overwatch/supervisor.ts";
import { gain } from "../thresholds.ts";

/** A configuration's standing at a rung. */
export interface RungEntry {
  node: NodeId;
  score: number | null;
  /** Step of the checkpoint the score was read at (≥ the rung). */
  step: number;
}

export interface Rung {
  rung: number;
  /** Ranked configurations, best first. */
  ranked: RungEntry[];
  keep: number;
}

/** Statuses that take a configuration out of the ranking (its own failure, not a halving decision). */
const OUT = new Set(["killed", "blocked", "plateaued"]);
/** Statuses of a configuration that can still answer: a cut needs one of these ranked above. */
const ALIVE = new Set(["running", "pending", "stale", "verified"]);

/** Score of a configuration at rung `r`, or null when it has not reached it. */
export function rungEntry(id: NodeId, ns: NodeState, r: number): RungEntry | null {
  const c = ns.ckpts.find((k) => k.step >= r);
  if (!c) return null;
  return { node: id, score: c.best ?? c.dev ?? null, step: c.step };
}

function compare(a: RungEntry, b: RungEntry, order: Map<NodeId, number>, dir: Direction): number {
  if (a.score !== null && b.score !== null) {
    const g = gain(b.score, a.score, dir);
    if (g !== 0) return g > 0 ? -1 : 1;
  } else if (a.score !== b.score) return a.score === null ? 1 : -1;
  return order.get(a.node)! - order.get(b.node)!;
}

/** Every rung of a sweep with its ranking now (rungs nobody reached have an empty ranking). */
export function rungs(state: Pick<RunState, "nodes" | "plan">, g: SweepGroup): Rung[] {
  if (!g.halving) return [];
  const { eta, min_keep } = g.halving;
  const order = new Map(g.configs.map((c, k) => [c.id, k]));
  const dir = state.plan.protocol.direction;
  return g.halving.rungs.map((r) => {
    const ranked = g.configs
      .filter((c) => !OUT.has(state.nodes[c.id]!.status))
      .map((c) => rungEntry(c.id, state.nodes[c.id]!, r))
      .filter((e): e is RungEntry => e !== null)
      .sort((a, b) => compare(a, b, order, dir));
    return { rung: r, ranked, keep: Math.max(min_keep, Math.floor(ranked.length / eta)) };
  });
}

/** A halving decision: the configuration, and what decided it. */
export interface Cut {
  node: NodeId;
  sweep: NodeId;
  rung: number;
  rank: number;
  keep: number;
  reached: number;
  eta: number;
  scores: RungEntry[];
}

/**
 * The configurations to kill now: running, at a checkpoint boundary (`boundary` holds the nodes that showed
 * a new checkpoint this tick), and outside the top `keep` of a rung they reached (the lowest such rung).
 */
export function cuts(state: Pick<RunState, "nodes" | "plan">, boundary: ReadonlySet<NodeId>): Cut[] {
  const out: Cut[] = [];
  for (const g of state.plan.sweeps ?? []) {
    const table = rungs(state, g);
    for (const c of g.configs) {
      if (state.nodes[c.id]!.status !== "running" || !boundary.has(c.id)) continue;
      for (const r of table) {
        const rank = r.ranked.findIndex((e) => e.node === c.id) + 1;
        if (
          rank <= r.keep || !r.ranked.slice(0, rank - 1).some((e) => ALIVE.has(state.nodes[e.node]!.status))
        ) {
          continue;
        }
        out.push({
          node: c.id,
          sweep: g.node,
          rung: r.rung,
          rank,
          keep: r.keep,
          reached: r.ranked.length,
          eta: g.halving!.eta,
          scores: [...r.ranked.slice(0, r.keep), r.ranked[rank - 1]!],
        });
        break;
      }
    }
  }
  return out;
}

/** FLOW: kill the losers at this tick's checkpoint boundaries and free their gpus for queued configurations. */
export function halve(tx: Tx): void {
  if (!tx.state.plan.sweeps?.length) return;
  const last = new Map<NodeId, { step: number; file: string }>();
  for (const ev of tx.events) if (ev.e === "ckpt") last.set(ev.node, { step: ev.step, file: ev.file });
  for (const cut of cuts(tx.state, new Set(last.keys()))) {
    const at = last.get(cut.node)!;
    const { node, ...why } = cut;
    sup.supersede(tx, node, {
      ckpt: at.file,
      step: at.step,
      best_dev: tx.state.nodes[node]!.best,
      answered_by: null,
      freed: "gpu",
      started: true,
      ...why,
    });
    if (tx.state.slots.gpu.held.includes(node)) tx.emit({ e: "slot", node, slot: "gpu", op: "free" });
  }
}

/** True when `a` and `b` are configurations of the same sweep (an answer by one never supersedes the other). */
export function siblings(plan: Pick<Plan, "sweeps">, a: NodeId, b: NodeId): boolean {
  const g = sweepOf(plan, a);
  return g !== undefined && g === sweepOf(plan, b);
}
