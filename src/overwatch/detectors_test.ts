import { deepEqual, equal } from "node:assert/strict";
import { K_FREEZE, PLATEAU_EPS, PLATEAU_PATIENCE } from "../thresholds.ts";
import { beats, bestCheckpoint, checkPlateau, trackProgress, trackScope } from "./detectors.ts";

function freeze(ticks: number, tokens = 100) {
  let t = { fp: "A", trail: ["A"], frozen: 0 };
  let stuck = false;
  for (let i = 0; i < ticks; i++) ({ stuck, ...t } = trackScope(t, "A", tokens));
  return { ...t, stuck };
}

Deno.test("trackScope() trips stuck at exactly K_FREEZE frozen ticks, not K_FREEZE-1", () => {
  equal(freeze(K_FREEZE - 1).stuck, false);
  equal(freeze(K_FREEZE - 1).frozen, K_FREEZE - 1);
  equal(freeze(K_FREEZE).stuck, true);
});

Deno.test("trackScope() does not count frozen ticks that burn no tokens", () => {
  equal(freeze(K_FREEZE + 2, 0).stuck, false);
  equal(freeze(K_FREEZE + 2, 0).frozen, 0);
});

Deno.test("trackScope() resets the freeze count when the scope changes", () => {
  let t = trackScope({ fp: "A", trail: ["A"], frozen: 0 }, "A", 5);
  t = trackScope(t, "A", 5);
  t = trackScope(t, "B", 5);
  equal(t.frozen, 0);
  equal(t.stuck, false);
});

Deno.test("trackScope() sees A→B→A as an oscillation, A→B→C as progress", () => {
  let t = trackScope({ fp: "E", trail: ["E"], frozen: 0 }, "A", 1);
  t = trackScope(t, "B", 1);
  equal(t.oscillation, null);
  const back = trackScope(t, "A", 1);
  deepEqual(back.oscillation, ["A", "B", "A"]);
  equal(trackScope(t, "C", 1).oscillation, null);
});

Deno.test("trackProgress() trips hung at exactly K_FREEZE ticks of unchanged (step, best)", () => {
  let p = {
    step: 0,
    value: null as number | null,
    best: null as number | null,
    bestStep: 0,
    stalled: 0,
    seen: null as { step: number; best: number | null } | null,
  };
  p = trackProgress(p, [{ step: 3, value: 0.5 }], "maximize");
  let hung = false;
  for (let i = 0; i < K_FREEZE - 1; i++) ({ hung, ...p } = trackProgress(p, [], "maximize"));
  equal(hung, false);
  ({ hung, ...p } = trackProgress(p, [], "maximize"));
  equal(hung, true);
});

Deno.test("trackProgress() tracks best in the protocol's direction", () => {
  const start = { step: 0, value: null, best: null, bestStep: 0, stalled: 0, seen: null };
  const pts = [{ step: 1, value: 0.5 }, { step: 2, value: 0.3 }, { step: 3, value: 0.4 }];
  equal(trackProgress(start, pts, "maximize").best, 0.5);
  equal(trackProgress(start, pts, "minimize").best, 0.3);
  equal(trackProgress(start, pts, "minimize").bestStep, 2);
});

Deno.test("checkPlateau() counts an improvement of exactly PLATEAU_EPS as progress", () => {
  equal(checkPlateau(0.6, 0.6 + PLATEAU_EPS, 1, 0.9, "maximize").flat, 0);
  equal(checkPlateau(0.6, 0.605, 1, 0.9, "maximize").flat, 0);
  equal(checkPlateau(0.6, 0.604999, 1, 0.9, "maximize").flat, 2);
});

Deno.test("checkPlateau() trips after PLATEAU_PATIENCE flat checkpoints, only below target", () => {
  let flat = 0;
  let r = checkPlateau(0.5, 0.501, flat, 0.6, "maximize");
  flat = r.flat;
  equal(r.plateau, PLATEAU_PATIENCE <= 1);
  r = checkPlateau(0.501, 0.502, flat, 0.6, "maximize");
  equal(r.flat, 2);
  equal(r.plateau, true);
  equal(checkPlateau(0.701, 0.702, 1, 0.6, "maximize").plateau, false, "above target is never a plateau");
  equal(checkPlateau(0.501, 0.502, 1, null, "maximize").plateau, false, "no target, no verdict");
  equal(checkPlateau(null, 0.5, 5, 0.6, "maximize").flat, 0, "first checkpoint cannot be flat");
});

Deno.test("checkPlateau() works for minimized metrics", () => {
  equal(checkPlateau(0.30, 0.295, 0, 0.1, "minimize").flat, 0);
  equal(checkPlateau(0.30, 0.299, 1, 0.1, "minimize").plateau, true);
});

Deno.test("bestCheckpoint() picks the best dev, earliest on ties", () => {
  const c = [{ step: 6, file: "a", dev: 0.5 }, { step: 12, file: "b", dev: 0.7 }, {
    step: 18,
    file: "c",
    dev: 0.7,
  }];
  equal(bestCheckpoint(c, "maximize")?.file, "b");
  equal(bestCheckpoint(c, "minimize")?.file, "a");
  equal(bestCheckpoint([{ step: 1, file: "x" }], "maximize"), undefined);
});

Deno.test("beats() is strict on the score grid", () => {
  equal(beats(0.6041, 0.6041, "maximize"), false);
  equal(beats(0.6042, 0.6041, "maximize"), true);
  equal(beats(0.6040, 0.6041, "minimize"), true);
});
