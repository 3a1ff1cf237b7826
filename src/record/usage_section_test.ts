import { deepEqual, equal } from "node:assert/strict";
import type { RunState } from "../model/state.ts";
import { usageSection } from "./usage_section.ts";

const state = (tokens: Record<string, number>) =>
  ({
    plan: { order: Object.keys(tokens) },
    nodes: Object.fromEntries(Object.entries(tokens).map(([id, t]) => [id, { tokens: t }])),
  }) as unknown as RunState;

Deno.test("usageSection() is empty without tokens, shows cost only when the API reported one", () => {
  deepEqual(usageSection(state({ a: 0, b: 0 })), []);
  const noCost = usageSection(state({ a: 10, b: 0 }), { a: { calls: 2, tokens: 10, cost: null } });
  equal(noCost[2], "| node | calls | tokens |");
  equal(noCost.at(-2), "| **total** | 2 | 10 |");
  const cost = usageSection(state({ a: 10, b: 5 }), {
    a: { calls: 2, tokens: 10, cost: 0.0125 },
    b: { calls: 1, tokens: 5, cost: null },
  });
  equal(cost[2], "| node | calls | tokens | cost |");
  equal(cost[4], "| a | 2 | 10 | $0.0125 |");
  equal(cost[5], "| b | 1 | 5 | — |");
  equal(cost[6], "| **total** | 3 | 15 | $0.0125 |");
  equal(cost[8], "Cost is the sum of what the API reported; nodes marked — reported none.");
});
