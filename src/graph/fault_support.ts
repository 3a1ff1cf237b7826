/**
 * Which fault kinds can take effect where. A fault aimed at a node whose worker cannot act it out is refused
 * before the run, with file:line:col, instead of being silently ignored: mock workers act out every kind
 * their node kind allows; command workers through the SDK (WORKERS.md); built-in real workers as each
 * declares; LLM agents none (their adversarial decoys are `arrow research --bait`).
 *
 * @module
 */
import type { Pos } from "./check.ts";
import type { Diagnostic } from "./load.ts";
import type { Fault } from "./scenario.ts";
import type { NodeKind, Plan, PlanNode } from "./types.ts";

const ANY: readonly NodeKind[] = ["fast", "long", "reactive"];

/** What the mock worker acts out, by node kind. */
export const MOCK_FAULTS: Readonly<Record<string, readonly NodeKind[]>> = {
  trainer_profile: ["long"],
  superseding_answer: ["long"],
  frozen_scope: ["fast"],
  flip_flop: ["fast"],
  manifest_override: ANY,
  out_of_scope_write: ANY,
  false_claim: ANY,
  stall: ANY,
  crash: ANY,
};
// bait is acted out by LLM agents only (see support()).

/** What the worker SDKs act out for command workers (ARROW_FAULTS). */
export const SDK_FAULTS = [
  "manifest_override",
  "out_of_scope_write",
  "false_claim",
  "stall",
  "crash",
] as const;

/** Engine-side kinds: the engine acts them out on any node. */
export const ENGINE_FAULT_KINDS = ["reopen", "taint"] as const;

const SCORE_ROLES = new Set(["baseline", "train", "eval", "ablation"]);

/** The fault kinds a node's worker honours in a run of `mode`, and how to name that worker. */
function support(
  node: PlanNode,
  mode: "mock" | "real" | "live",
  builtinFaults: Readonly<Record<string, readonly string[]>>,
): { kinds: readonly string[]; who: string } {
  const w = mode === "mock" ? undefined : node.worker;
  if (!w) {
    const kinds = Object.keys(MOCK_FAULTS).filter((k) => MOCK_FAULTS[k]!.includes(node.kind));
    return { kinds, who: `the mock worker of a ${node.kind} node` };
  }
  if (w.type === "builtin") {
    return { kinds: builtinFaults[w.name] ?? [], who: `the built-in worker ${w.name}` };
  }
  if (w.type === "command") return { kinds: SDK_FAULTS, who: "a command worker (through the SDK)" };
  return mode === "live"
    ? { kinds: ["bait"], who: "an LLM agent" }
    : { kinds: [], who: "an LLM agent off the live path" };
}

/** Faults that cannot take effect on the node they are aimed at, as diagnostics at the fault's position. */
export function faultProblems(
  plan: Plan,
  faults: readonly Fault[],
  pos: readonly Pos[],
  file: string,
  mode: "mock" | "real" | "live",
  builtinFaults: Readonly<Record<string, readonly string[]>> = {},
): Diagnostic[] {
  const out: Diagnostic[] = [];
  faults.forEach((f, i) => {
    const node = plan.nodes.find((n) => n.id === f.node);
    if (!node || (ENGINE_FAULT_KINDS as readonly string[]).includes(f.kind)) return;
    const at = pos[i] ?? { line: 1, col: 1 };
    const { kinds, who } = support(node, mode, builtinFaults);
    if (!kinds.includes(f.kind)) {
      out.push({
        file,
        ...at,
        message:
          `fault ${f.kind} aimed at "${node.id}" cannot take effect: ${node.id} runs ${who}, which acts out ${
            kinds.length ? kinds.join(", ") : "no worker-side fault"
          }`,
      });
      return;
    }
    if (f.kind === "false_claim" && !SCORE_ROLES.has(node.role) && node.mock.score === undefined) {
      out.push({
        file,
        ...at,
        message: `fault false_claim aimed at "${node.id}": a ${node.role} node claims no score`,
      });
    }
  });
  return out;
}
