/**
 * state.json's text, built from cached pieces: exactly the bytes of `canonicalPretty(state)`, but a node
 * whose state object did not change since the last write (the tick transaction copies a node only when an
 * event changes it, so identity means unchanged) and the immutable plan are not serialised again. A large
 * plan's state.json then costs what changed, plus one string join.
 *
 * @module
 */
import { canonicalPretty } from "../model/json.ts";
import type { RunState } from "../model/state.ts";

const pieces = new WeakMap<object, string>();

/** `canonicalPretty(value)` re-indented to sit `depth` levels deep (its first line is not indented). */
function nested(value: object, depth: number): string {
  let text = pieces.get(value);
  if (text === undefined) {
    const pad = " ".repeat(2 * depth);
    text = canonicalPretty(value).trimEnd().replaceAll("\n", `\n${pad}`);
    pieces.set(value, text);
  }
  return text;
}

/** The same bytes as canonicalPretty(state), reusing the text of unchanged nodes and of the plan. */
export function stateText(state: RunState): string {
  const keys = Object.keys(state).sort() as (keyof RunState)[];
  const parts: string[] = [];
  for (const k of keys) {
    const v = state[k];
    if (v === undefined) continue;
    let text: string;
    if (k === "nodes") {
      const ids = Object.keys(state.nodes).sort();
      text = ids.length
        ? `{\n${
          ids.map((id) => `    ${JSON.stringify(id)}: ${nested(state.nodes[id]!, 2)}`).join(",\n")
        }\n  }`
        : "{}";
    } else if (k === "plan") text = nested(state.plan, 1);
    else text = canonicalPretty(v).trimEnd().replaceAll("\n", "\n  ");
    parts.push(`  ${JSON.stringify(k)}: ${text}`);
  }
  return `{\n${parts.join(",\n")}\n}\n`;
}
