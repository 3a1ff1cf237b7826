/**
 * A transaction over one tick: events are applied to the working state as they are emitted, so each later
 * decision in the tick sees the earlier ones, and the list of events becomes the tick's replay line.
 *
 * @module
 */
import type { Action } from "./actions.ts";
import type { Event } from "./events.ts";
import { apply } from "./reduce.ts";
import type { Incident, RunState } from "./state.ts";

export class Tx {
  readonly events: Event[] = [];
  readonly actions: Action[] = [];
  readonly incidents: Incident[] = [];
  constructor(public state: RunState, readonly tick: number) {}

  emit(ev: Event): void {
    this.state = apply(this.state, ev);
    this.events.push(ev);
    if (ev.e === "incident") this.incidents.push(ev.incident);
  }

  act(action: Action): void {
    this.actions.push(action);
  }
}
