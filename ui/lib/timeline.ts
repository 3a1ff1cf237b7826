/**
 * A run's replay as the browser holds it: the lines received so far, and the state after any of them,
 * rebuilt with the engine's own reducer. Only the newest state is kept while lines arrive (a 10,000-line replay
 * folds without one copy per line); snapshots every few lines are taken lazily the first time the user scrubs
 * back past them, so scrubbing stays cheap afterwards.
 *
 * @module
 */
import type { ReplayLine } from "../../src/model/events.ts";
import { copyJson } from "../../src/model/copy.ts";
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
  /** State after line i, for line 0 and for multiples of SNAP_EVERY already replayed by stateAt(). */
  #snaps = new Map<number, RunState>();
  /** The keys of #snaps, ascending. */
  #snapKeys: number[] = [];
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
    if (at === 0) this.#keep(0, this.#head);
    return true;
  }

  #keep(at: number, s: RunState): void {
    if (this.#snaps.has(at)) return;
    this.#snaps.set(at, copyJson(s));
    let k = this.#snapKeys.length;
    while (k > 0 && this.#snapKeys[k - 1]! > at) k--;
    this.#snapKeys.splice(k, 0, at);
  }

  /** The nearest snapshot at or before line `i`. */
  #snapBefore(i: number): number {
    let lo = 0;
    let hi = this.#snapKeys.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.#snapKeys[mid]! <= i) lo = mid;
      else hi = mid - 1;
    }
    return this.#snapKeys[lo]!;
  }

  /** A fresh copy of the state after line `i` (clamped to the lines held). */
  stateAt(i: number): RunState {
    if (!this.#head) throw new RangeError("Cannot rebuild a state: no replay line yet");
    const end = Math.max(0, Math.min(i, this.lines.length - 1));
    if (end === this.lines.length - 1) return copyJson(this.#head);
    const base = this.#snapBefore(end);
    let s = copyJson(this.#snaps.get(base)!);
    for (let k = base + 1; k <= end; k++) {
      s = applyTick(s, this.lines[k]!);
      if (k % SNAP_EVERY === 0 && k < end) this.#keep(k, s);
    }
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
