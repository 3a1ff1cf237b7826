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
  // The linear models screened so far lost (z −2 on average): its lucky 1.5 gives way to the ratio's 1.2.
  const prior = new Map([["linear_model", { shrunk: -2 }], ["ratio", { shrunk: 0.3 }]]);
  deepEqual(keys(promotionOrder(screened, prior)), ["c", "a", "d", "b"]);
});
