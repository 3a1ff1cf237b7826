import { deepEqual } from "node:assert/strict";
import { promotionOrder } from "./screen.ts";
import type { ScreenedCandidate } from "../types.ts";

const c = (key: string, family: ScreenedCandidate["family"], z: number | null): ScreenedCandidate => ({
  key,
  family,
  columns: [],
  text: key,
  gain: z === null ? null : { loss: "logloss", gain: z / 100, se: 0.01, n: 100, z },
  problem: z === null ? "not screened: it exited with 1" : null,
  promoted: false,
});

Deno.test("promotionOrder(): the unscreened first, then by z; insights shrink a z toward its family's screens", () => {
  const screened = [
    c("a", "ratio", 1.2),
    c("b", "linear_model", 1.5),
    c("c", "log", null),
    c("d", "log", 0.4),
  ];
  const keys = (o: { c: ScreenedCandidate }[]) => o.map((x) => x.c.key);
  deepEqual(keys(promotionOrder(screened, null)), ["c", "b", "a", "d"]);
  // The linear models screened so far lost alike (z −2 on average, no spread beyond the floor): its lucky
  // 1.5 gives way to the ratio's 1.2 (−1.3 against 0.48; the log, with no screens yet, halves to 0.2).
  const prior = new Map([["linear_model", { shrunk: -2, spread: 0.25 }], ["ratio", {
    shrunk: 0.3,
    spread: 0.25,
  }]]);
  deepEqual(keys(promotionOrder(screened, prior)), ["c", "a", "d", "b"]);
  // Had the linear models' screens differed widely (τ² 8), their mean would say little of this one: 1.5 keeps
  // 8/9 of itself (1.11) and goes first.
  const apart = new Map([["linear_model", { shrunk: -2, spread: 8 }], ["ratio", {
    shrunk: 0.3,
    spread: 0.25,
  }]]);
  deepEqual(keys(promotionOrder(screened, apart)), ["c", "b", "a", "d"]);
});

Deno.test("promotionOrder() with the gate's reach: a large gain the held-out rows can see before a sure sliver", () => {
  const g = (key: string, gain: number, z: number, n = 80): ScreenedCandidate => ({
    ...c(key, "ratio", z),
    gain: { loss: "logloss", gain, se: gain / z, n, z },
  });
  const screened = [
    g("sliver", 0.0016, 1.64),
    g("large", 0.0134, 1.2),
    g("loses", -0.02, -2.5),
    g("tiny", 0.0002, 2.5),
    c("u", "log", null),
  ];
  const keys = (o: { c: ScreenedCandidate }[]) => o.map((x) => x.c.key);
  // By z alone the surest slivers go first.
  deepEqual(keys(promotionOrder(screened, null)), ["u", "tiny", "sliver", "large", "loses"]);
  // By what each promises on 70 held-out rows against a bar of 1.88 (gain × Φ(z·√(70/80) − 1.88)): the large
  // gain (0.0030), the sliver (0.0006), the tiny one (0.0001); one that loses promises nothing.
  deepEqual(
    keys(promotionOrder(screened, null, { heldout: 70, bar: 1.88 })),
    ["u", "large", "sliver", "tiny", "loses"],
  );
});
