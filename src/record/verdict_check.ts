/**
 * A verdict in the black box must be one the engine could have written: no node still running, and exactly
 * what the verdict rules give for the state the replay has built up to that event. Without a sandbox a
 * worker can append a chained line and rewrite the chain head (no secret can be hidden from it), but it
 * cannot make its forged verdict agree with the state the honest lines describe.
 *
 * @module
 */
import type { ReplayLine } from "../model/events.ts";
import { canonical } from "../model/json.ts";
import { apply, initial } from "../model/reduce.ts";
import type { RunState } from "../model/state.ts";
import { judge } from "../overwatch/verdict.ts";

/** Names the first replay line whose verdict the state does not imply, or null when every verdict holds. */
export function verdictProblem(lines: readonly ReplayLine[]): string | null {
  let state: RunState | undefined;
  for (const [i, line] of lines.entries()) {
    if (!state) {
      state = initial(line);
      continue;
    }
    if (line.tick > state.tick) state.tick = line.tick;
    for (const ev of line.events) {
      if (ev.e === "verdict") {
        const running = Object.entries(state.nodes).filter(([, n]) => n.status === "running").map(([id]) =>
          id
        );
        if (running.length) {
          return `line ${i + 1} carries a verdict (${ev.verdict}) while ${running.join(", ")} still run`;
        }
        const j = judge(state);
        if (j.verdict !== ev.verdict || canonical(j.detail) !== canonical(ev.detail)) {
          return `line ${
            i + 1
          } carries the verdict ${ev.verdict}, but the run's own record gives ${j.verdict}`;
        }
      }
      state = apply(state, ev);
    }
  }
  return null;
}
