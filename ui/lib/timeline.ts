/**
 * A run's replay as the browser holds it: the lines received so far, and the state after any of them,
 * rebuilt with the engine's own reducer. Snapshots every few lines keep scrubbing cheap on long runs.
 *
 * @module
 */
import type { ReplayLine } from "../../src/model/events.ts";
import { apply, applyTick } from "../../src/model/reduce.ts";
import type { Incident, RunState } from "../../src/model/state.ts";

/** An incident with the index of the replay line that carried it (its place on the timeline). */
export interface Placed {
  at: number;
  /** Position among all incidents of the run: a stable key. */
  seq: number;
  incident: Incident;
}

const SNAP_EVERY = 16;

export class Timeline {
  readonly lines: ReplayLine[] = [];
  readonly incidents: Placed[] = [];
  /** State after line i, kept for every i that is a multiple of SNAP_EVERY. */
  #snaps = new Map<number, RunState>();
  #head: RunState | null = null;

  get size(): number {
    return this.lines.length;
  }

  /** Appends a line; a line that is not past the last tick (a re-sent one) is ignored. */
  push(line: ReplayLine): boolean {
    const last = this.lines.at(-1);
    if (last && line.tick <= last.tick) return false;
    if (!this.#head) {
      const init = line.events[0];
      if (init?.e !== "init") throw new SyntaxError("Cannot replay: the first line has no init event");
      this.#head = applyTick(apply(undefined as unknown as RunState, init), {
        tick: line.tick,
        events: line.events.slice(1),
      });
    } else this.#head = applyTick(this.#head, line);
    const at = this.lines.length;
    this.lines.push(line);
    for (const ev of line.events) {
      if (ev.e === "incident") this.incidents.push({ at, seq: this.incidents.length, incident: ev.incident });
    }
    if (at % SNAP_EVERY === 0) this.#snaps.set(at, structuredClone(this.#head));
    return true;
  }

  /** A fresh copy of the state after line `i` (clamped to the lines held). */
  stateAt(i: number): RunState {
    if (!this.#head) throw new RangeError("Cannot rebuild a state: no replay line yet");
    const end = Math.max(0, Math.min(i, this.lines.length - 1));
    if (end === this.lines.length - 1) return structuredClone(this.#head);
    const base = end - (end % SNAP_EVERY);
    let s = structuredClone(this.#snaps.get(base)!);
    for (let k = base + 1; k <= end; k++) s = applyTick(s, this.lines[k]!);
    return s;
  }

  /** Incidents carried by lines 0..i, oldest first. */
  incidentsUpTo(i: number): Placed[] {
    let n = this.incidents.length;
    while (n > 0 && this.incidents[n - 1]!.at > i) n--;
    return this.incidents.slice(0, n);
  }

  /** Index of the line for `tick`, or of the last line before it. */
  indexOfTick(tick: number): number {
    let lo = 0;
    let hi = this.lines.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lines[mid]!.tick <= tick) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}
