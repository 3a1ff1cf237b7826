/**
 * A transaction over one tick: events are applied to the working state as they are emitted, so each later
 * decision in the tick sees the earlier ones, and the list of events becomes the tick's replay line.
 *
 * The working state is a copy on write of the input state: the top level and the node map are copied when
 * the transaction opens, and a node (or the slots, or a fault) is copied the first time an event changes
 * it. The input state is never mutated, and a tick in which one node changes copies one node, not the
 * thousand of a large plan (the plan itself is immutable and shared).
 *
 * @module
 */
import type { Action } from "./actions.ts";
import { copyJson } from "./copy.ts";
import type { Event } from "./events.ts";
import { apply } from "./reduce.ts";
import type { Incident, RunState } from "./state.ts";

/** A working copy of `state` sharing everything until it is changed (see Tx). */
export function openCopy(state: RunState): RunState {
  return { ...state, nodes: { ...state.nodes }, frozen: state.frozen ? { ...state.frozen } : null };
}

export class Tx {
  readonly events: Event[] = [];
  readonly actions: Action[] = [];
  readonly incidents: Incident[] = [];
  #owned = new Set<string>();
  #slots = false;
  #faults = new Set<number>();

  /** `state` must be a working copy (openCopy) the transaction may change. */
  constructor(public state: RunState, readonly tick: number) {}

  /** Copies what `ev` is about to change, unless this transaction already owns it. */
  #own(ev: Event): void {
    const node = ev.e === "stream" ? ev.to : "node" in ev && ev.e !== "fault" ? ev.node : null;
    if (node !== null && !this.#owned.has(node) && this.state.nodes[node]) {
      this.state.nodes[node] = copyJson(this.state.nodes[node]!);
      this.#owned.add(node);
    }
    if (ev.e === "slot" && !this.#slots) {
      this.state.slots = copyJson(this.state.slots);
      this.#slots = true;
    }
    if (ev.e === "fault" && !this.#faults.has(ev.index)) {
      this.state.faults = [...this.state.faults];
      this.state.faults[ev.index] = { ...this.state.faults[ev.index]! };
      this.#faults.add(ev.index);
    }
  }

  emit(ev: Event): void {
    if (ev.e !== "init") this.#own(ev);
    this.state = apply(this.state, ev);
    this.events.push(ev);
    if (ev.e === "incident") this.incidents.push(ev.incident);
  }

  act(action: Action): void {
    this.actions.push(action);
  }
}
