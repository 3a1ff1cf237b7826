/**
 * The subcommand table. Each entry loads its implementation lazily, so `arrow --help` and `arrow validate`
 * never pay for the engine or the server.
 *
 * @module
 */

export interface Command {
  name: string;
  summary: string;
  load: () => Promise<{ main(argv: string[]): Promise<number>; help: string }>;
}

export const COMMANDS: readonly Command[] = [
  {
    name: "run",
    summary: "Run a built-in scenario or your own plan under overwatch and print the verdict.",
    load: () => import("./run.ts"),
  },
  {
    name: "scenarios",
    summary: "List the built-in scenarios with what each one shows.",
    load: () => import("./scenarios.ts"),
  },
  {
    name: "validate",
    summary: "Check a plan file and list every problem as file:line:col.",
    load: () => import("./validate.ts"),
  },
  {
    name: "report",
    summary: "Print the anytime report of a run (regenerated from its black box).",
    load: () => import("./report.ts"),
  },
  {
    name: "replay",
    summary: "Re-render a run tick by tick from replay.jsonl, running no worker.",
    load: () => import("./replay.ts"),
  },
  {
    name: "resume",
    summary: "Continue a run whose arrow process died, from its last persisted tick.",
    load: () => import("./resume.ts"),
  },
  {
    name: "reopen",
    summary: "Reopen a node of a live or interrupted run: it and its closure turn stale and re-run.",
    load: () => import("./reopen.ts"),
  },
  {
    name: "taint",
    summary: "Taint a node of a live or interrupted run: its readings are re-evaluated, training spared.",
    load: () => import("./taint.ts"),
  },
  {
    name: "serve",
    summary: "Serve the dashboard: every run, live or finished, with its graph, incidents and replay.",
    load: () => import("./serve.ts"),
  },
  {
    name: "research",
    summary: "Question → plan → live LLM agents under overwatch → verdict and report, in one command.",
    load: () => import("./research.ts"),
  },
  {
    name: "tree",
    summary:
      "Grow a tree of feature hypotheses on a CSV: sandboxed executors, a held-out merge gate, insights.",
    load: () => import("./tree.ts"),
  },
  {
    name: "plan",
    summary: "Ask an LLM to turn a research question into a validated plan file.",
    load: () => import("./plan.ts"),
  },
  {
    name: "proxy",
    summary: "OpenAI-compatible proxy: attributes, records and budgets any agent framework's LLM calls.",
    load: () => import("./proxy.ts"),
  },
];
