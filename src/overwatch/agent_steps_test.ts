import { deepEqual, equal } from "node:assert/strict";
import { K_FREEZE } from "../thresholds.ts";
import { freshTrack, spunOut, trackSteps } from "./agent_steps.ts";

const start = { fp: "E", trail: ["E"], frozen: 0 };
const step = (n: number, fp: string, tokens = 1230, cost: number | null = 0.01) => ({
  step: n,
  tokens,
  cost,
  fp,
});

Deno.test("trackSteps() trips after K_FREEZE frozen steps within one batch, with steps, tokens and cost", () => {
  const steps = Array.from({ length: 12 }, (_, i) => step(i + 1, "E"));
  const r = trackSteps(start, freshTrack(1, start.trail), steps);
  deepEqual(r.finding, {
    kind: "spin",
    frozen: K_FREEZE,
    from: 1,
    to: K_FREEZE,
    tokens: 1230 * K_FREEZE,
    cost: 0.03,
    fp: "E",
  });
  equal(r.track.step, K_FREEZE, "judging stops at the trip");
});

Deno.test("trackSteps() counts frozen steps across batches (a slow spinner) and each step number once", () => {
  let sc = start;
  let tr = freshTrack(1, start.trail);
  const a = trackSteps(sc, tr, [step(1, "A"), step(2, "A")]);
  equal(a.finding, null);
  sc = a.scope;
  tr = a.track;
  const again = trackSteps(sc, tr, [step(2, "A")]);
  equal(again.scope.frozen, 1, "a step seen again (replayed) is not counted twice");
  const b = trackSteps(sc, tr, [step(3, "A")]);
  equal(b.finding, null);
  const c = trackSteps(b.scope, b.track, [step(4, "A")]);
  deepEqual(c.finding && { kind: c.finding.kind, from: 2 }, { kind: "spin", from: 2 });
  equal(c.finding?.kind === "spin" && c.finding.to, 4);
});

Deno.test("trackSteps() resets the frozen run on a change or a step that burned nothing", () => {
  const r = trackSteps(start, freshTrack(1, start.trail), [
    step(1, "E"),
    step(2, "E"),
    step(3, "B"),
    step(4, "B"),
    step(5, "B", 0),
    step(6, "B"),
  ]);
  equal(r.finding, null);
  equal(r.scope.frozen, 1);
  equal(r.track.from, 6);
});

Deno.test("trackSteps() finds A→B→A across agent steps and names the steps", () => {
  const r = trackSteps(start, freshTrack(1, start.trail), [step(1, "A"), step(2, "B"), step(3, "A")]);
  deepEqual(r.finding, { kind: "oscillation", trail: ["A", "B", "A"], steps: [1, 2, 3] });
});

Deno.test("spunOut() calls a frozen end a spin, and a changing end nothing", () => {
  const frozen = trackSteps(start, freshTrack(1, start.trail), [step(1, "A"), step(2, "A")]);
  deepEqual(spunOut(frozen.scope, frozen.track), {
    kind: "spin",
    frozen: 1,
    from: 2,
    to: 2,
    tokens: 1230,
    cost: 0.01,
    fp: "A",
  });
  const moving = trackSteps(start, freshTrack(1, start.trail), [step(1, "A"), step(2, "B")]);
  equal(spunOut(moving.scope, moving.track), null);
});
