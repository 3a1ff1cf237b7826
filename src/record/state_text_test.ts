import { equal } from "node:assert/strict";
import { resolveBuiltin } from "../cli/catalog.ts";
import { prepare } from "../engine/prepare.ts";
import { canonicalPretty } from "../model/json.ts";
import { parseReplay, states } from "./replay.ts";
import { stateText } from "./state_text.ts";

Deno.test("stateText() gives exactly canonicalPretty()'s bytes, state after state of a whole run", () => {
  const golden = new URL("../../tests/golden/trap_stale/replay.jsonl", import.meta.url);
  const { lines } = parseReplay(Deno.readTextFileSync(golden));
  let n = 0;
  for (const { state } of states(lines)) {
    // The fold mutates in place: give each state fresh objects, as the engine's ticks do.
    const s = structuredClone(state);
    equal(stateText(s), canonicalPretty(s));
    n++;
  }
  equal(n, lines.length);
  const fresh = prepare(resolveBuiltin("plateau").plan, [], "plateau", "mock");
  equal(stateText(fresh), canonicalPretty(fresh));
});
