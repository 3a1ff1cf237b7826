/**
 * Plans for the hostile-worker suite: each attack is one node whose command worker is an attacker program
 * of this folder (Python, sh or Deno), so one arrow process meets several attacks and each one's outcome is
 * read off its own node. The protocol is the regression task's; nodes without edges run side by side.
 *
 * @module
 */
import { PYTHON } from "../helpers/hostile.ts";

export const HOSTILE = new URL("./", import.meta.url).pathname;
const EXAMPLES = new URL("../../scenarios/examples/", import.meta.url).pathname;

/** argv of the Python attacker. */
export const py = (...args: string[]) => [PYTHON, `${HOSTILE}attack.py`, ...args];
/** argv of the sh attacker. */
export const sh = (...args: string[]) => ["/bin/sh", `${HOSTILE}attack.sh`, ...args];
/** argv of the Deno attacker (a command worker like any other: no Deno permission layer of Arrow's). */
export const deno = (...args: string[]) => [
  Deno.execPath(),
  "run",
  "-A",
  "--no-config",
  "--no-lock",
  "--no-remote",
  "--no-npm",
  "--quiet",
  `${HOSTILE}attack.ts`,
  ...args,
];

export interface NodeSpec {
  id: string;
  argv?: string[];
  kind?: "fast" | "long";
  role?: string;
  acceptance?: string[];
  env?: Record<string, string>;
  budget?: { wall?: string; ticks?: number };
  /** A built-in worker instead of a program. */
  builtin?: string;
  args?: Record<string, unknown>;
}

export interface Edge {
  from: string;
  to: string;
  kind?: "artifact" | "stream" | "back_edge";
}

const PROTOCOL = { version: "p1-dev-r2", metric: "dev_r2", direction: "maximize" } as const;

/** A plan document from attack nodes (and any honest ones). */
export function planDoc(
  question: string,
  nodes: NodeSpec[],
  o: { edges?: Edge[]; evaluate?: string[] } = {},
): Record<string, unknown> {
  return {
    question,
    // Every attack at once: long nodes would otherwise queue for the one gpu slot.
    resources: { slots: { cpu: 32, gpu: 32 } },
    protocol: { ...PROTOCOL, ...(o.evaluate ? { evaluate: o.evaluate } : {}) },
    nodes: nodes.map((n) => ({
      id: n.id,
      kind: n.kind ?? "fast",
      role: n.role ?? "other",
      ...(n.acceptance ? { acceptance: n.acceptance } : {}),
      ...(n.budget ? { budget: n.budget } : {}),
      ...(n.builtin
        ? { worker: { type: "builtin", name: n.builtin, ...(n.args ? { args: n.args } : {}) } }
        : n.argv
        ? { worker: { type: "command", argv: n.argv, ...(n.env ? { env: n.env } : {}) } }
        : {}),
    })),
    edges: (o.edges ?? []).map((e) => ({ kind: "artifact", ...e })),
  };
}

/**
 * The honest part of the regression task: protocol → data (built-in) → harness, which freezes the
 * comparability tuple, and the built-in OLS baseline with its claim recomputed.
 */
export function honestHead(): { nodes: NodeSpec[]; edges: Edge[] } {
  return {
    nodes: [
      { id: "protocol", role: "protocol" },
      { id: "data", role: "data", builtin: "make_data" },
      { id: "harness", role: "harness" },
      { id: "baseline", role: "baseline", builtin: "ols_baseline", acceptance: ["@claim"] },
    ],
    edges: [
      { from: "protocol", to: "data" },
      { from: "data", to: "harness" },
      { from: "harness", to: "baseline" },
    ],
  };
}

/** The Python example's honest evaluator: recomputes a poly_ridge model's dev R² on the frozen data. */
export const EVALUATE = [PYTHON, `${EXAMPLES}python_trainer/evaluate.py`, "{artifact}", "{data}"];
