/**
 * The tick as a step function: `(state, observations) → (state', events, actions)`. SENSE happened before
 * (the observations); PERSIST happens after (the events). In between, in order: DECIDE, FREE, FLOW, ADMIT,
 * and the verdict once the run quiesces. Pure: no clock, no randomness, no I/O.
 *
 * @module
 */
import type { Action } from "../model/actions.ts";
import type { Event } from "../model/events.ts";
import type { Observations } from "../model/observe.ts";
import type { RunState } from "../model/state.ts";
import { openCopy, Tx } from "../model/tx.ts";
import * as sup from "../overwatch/supervisor.ts";
import { admit, quiescent } from "./admit.ts";
import { decide } from "./decide.ts";
import { flow, free } from "./flow.ts";

export interface StepResult {
  state: RunState;
  events: Event[];
  actions: Action[];
}

const REPORTABLE = new Set(["status", "incident", "verdict", "spawn", "freeze"]);

export function step(state: RunState, obs: Observations): StepResult {
  if (obs.tick !== state.tick + 1) {
    throw new RangeError(
      `Cannot step: observations are for tick ${obs.tick}, state is at tick ${state.tick}`,
    );
  }
  const tx = new Tx(openCopy(state), obs.tick);
  tx.state.tick = obs.tick;
  decide(tx, obs);
  free(tx);
  flow(tx, obs);
  admit(tx);
  if (tx.state.verdict === null && quiescent(tx)) sup.conclude(tx);
  if (tx.events.some((e) => REPORTABLE.has(e.e))) tx.emit({ e: "report", version: tx.state.report + 1 });
  return { state: tx.state, events: tx.events, actions: tx.actions };
}

/** Fuses every running node (the run hit its tick limit) and concludes. */
export function exhaust(state: RunState, limit: number): StepResult {
  const tx = new Tx(openCopy(state), state.tick + 1);
  tx.state.tick = tx.tick;
  for (const id of tx.state.plan.order) {
    if (tx.state.nodes[id]!.status === "running") {
      sup.overBudget(tx, id, { budget: "run ticks", limit, used: tx.tick });
    }
  }
  free(tx);
  sup.conclude(tx);
  tx.emit({ e: "report", version: tx.state.report + 1 });
  return { state: tx.state, events: tx.events, actions: tx.actions };
}
