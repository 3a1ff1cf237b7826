import { deepEqual as assertEquals, notStrictEqual, throws } from "node:assert/strict";
import { resolveBuiltin } from "../../src/cli/catalog.ts";
import { prepare } from "../../src/engine/prepare.ts";
import type { ReplayLine } from "../../src/model/events.ts";
import { fold } from "../../src/model/reduce.ts";
import type { Incident } from "../../src/model/state.ts";
import { Timeline } from "./timeline.ts";

function lines(n: number): ReplayLine[] {
  const res = resolveBuiltin("green");
  const state = prepare(res.plan, res.faults, "green", "mock");
  const out: ReplayLine[] = [{ tick: 0, events: [{ e: "init", state }] }];
  const ids = res.plan.order;
  for (let t = 1; t < n; t++) {
    const node = ids[t % ids.length]!;
    const incident: Incident = {
      tick: t,
      type: "BUDGET_TRIP",
      node,
      ladder: "bounce",
      evidence: { budget: "ticks", limit: t, used: t },
      laps: 0,
      tokens: t,
    };
    out.push({
      tick: t,
      events: [
        { e: "note", node, set: { tokens: t } },
        ...(t % 7 === 0 ? [{ e: "incident" as const, incident }] : []),
      ],
    });
  }
  return out;
}

Deno.test("Timeline.stateAt() equals folding the replay up to that line", () => {
  const all = lines(60);
  const tl = new Timeline();
  for (const l of all) tl.push(l);
  for (const i of [0, 1, 15, 16, 17, 33, 59]) assertEquals(tl.stateAt(i), fold(all.slice(0, i + 1)));
});

Deno.test("Timeline.stateAt() hands out copies", () => {
  const tl = new Timeline();
  for (const l of lines(5)) tl.push(l);
  notStrictEqual(tl.stateAt(4), tl.stateAt(4));
});

Deno.test("Timeline.push() ignores re-sent ticks and needs an init line first", () => {
  const all = lines(4);
  const tl = new Timeline();
  throws(() => tl.push(all[1]!), SyntaxError);
  for (const l of all) tl.push(l);
  assertEquals(tl.push(all[2]!), false);
  assertEquals(tl.size, 4);
});

Deno.test("Timeline.incidentsUpTo() and indexOfTick() cut at the line", () => {
  const tl = new Timeline();
  for (const l of lines(30)) tl.push(l);
  assertEquals(tl.incidentsUpTo(13).map((p) => p.incident.tick), [7]);
  assertEquals(tl.incidentsUpTo(29).map((p) => p.seq), [0, 1, 2, 3]);
  assertEquals(tl.indexOfTick(14), 14);
});

Deno.test("Timeline.stateAt() is the same state whichever order lines are visited in", () => {
  const all = lines(120);
  const tl = new Timeline();
  for (const l of all) tl.push(l);
  // Backwards, forwards and jumping: lazily taken snapshots must never leak later lines into earlier states.
  for (const i of [119, 100, 64, 3, 50, 49, 48, 47, 110, 0, 80, 17, 119]) {
    assertEquals(tl.stateAt(i), fold(all.slice(0, i + 1)));
  }
  // A snapshot is a copy: mutating a state handed out does not change the next one.
  const s = tl.stateAt(40);
  s.tick = -1;
  assertEquals(tl.stateAt(40), fold(all.slice(0, 41)));
});
