/**
 * The shapes of a plan's sweeps — as written (`SweepSpec`) and expanded (`SweepGroup`) — apart from their
 * schema and expansion (sweep.ts), so that the plan types can name them without importing the expander.
 *
 * @module
 */
import type { SweepParam } from "./sweep_space.ts";
import type { NodeId } from "./vocabulary.ts";

export type { SweepParam };

export interface SweepHalving {
  eta?: number;
  rungs: number[];
  min_keep?: number;
}

/** `sweep:` as written (proven equal to `sweepSchema` through the plan-file type test). */
export interface SweepSpec {
  space: Record<string, SweepParam>;
  count?: number;
  grid?: boolean;
  seed?: number;
  halving?: SweepHalving;
}

/** One configuration of an expanded sweep: its node and the arguments it runs with. */
export interface SweepConfig {
  id: NodeId;
  args: Record<string, string | number | boolean>;
  /** Stages it trains in all when known (worker args or mock profile): what a full sweep spends on it. */
  stages: number | null;
}

/** An expanded sweep, kept in the plan the engine runs (`Plan.sweeps`). */
export interface SweepGroup {
  /** The sweep node as written; it no longer exists in the expanded plan. */
  node: NodeId;
  title: string;
  configs: SweepConfig[];
  /** Reactive nodes subscribed to the configurations' checkpoint streams (the first is the ranker). */
  rankers: NodeId[];
  halving: { eta: number; rungs: number[]; min_keep: number } | null;
}
