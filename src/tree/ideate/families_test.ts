import { deepEqual, equal, ok } from "node:assert/strict";
import { FAMILIES, FAMILY_NAMES, LLM_FAMILIES } from "./families.ts";
import { whyOf } from "./insight.ts";
import { SYSTEM_PROMPT } from "./llm_ideator.ts";

Deno.test("families.ts is where a family is declared: the LLM prompt, the insights and the library read it", () => {
  // The prompt offers exactly the families an LLM may name, in the table's order, and no model move.
  const offered = /"family": "<one of ([^>]+), or llm>"/.exec(SYSTEM_PROMPT)?.[1]?.split(", ");
  deepEqual(offered, [...LLM_FAMILIES]);
  for (const f of ["capacity", "linear_model", "ensemble", "llm"] as const) {
    equal(LLM_FAMILIES.includes(f), false);
  }
  // Every family's insight sentences come from its card.
  for (const f of FAMILY_NAMES) {
    equal(whyOf(f, "helped", null), FAMILIES[f].helped);
    equal(whyOf(f, "hurt", null), FAMILIES[f].hurt);
    ok(FAMILIES[f].prior >= 0 && FAMILIES[f].prior <= 1, f);
  }
  equal(whyOf("log", "neutral", null), FAMILIES.log.neutral);
  equal(whyOf("ratio", "neutral", null), "the effect is within the folds' noise");
});
