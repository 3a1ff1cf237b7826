/**
 * The planner's instructions: what a plan is for, the file format (outlined from the plan schema), the
 * rules a live plan must follow, and a worked example that the loader accepts (a test proves it).
 *
 * @module
 */
import { planSchema } from "../graph/plan_schema.ts";
import { outline } from "./schema_outline.ts";

/** A small valid live plan, for a different question than the user's so it is imitated, not copied. */
export const EXAMPLE_PLAN =
  `question: Does standardising features improve a k-nearest-neighbours classifier on a small tabular data set?
protocol:
  version: knn-acc-v1
  metric: dev_acc
  direction: maximize
nodes:
  - id: P0
    title: protocol
    kind: fast
    role: protocol
  - id: D1
    title: data and split
    kind: fast
    role: data
    worker:
      type: agent
      prompt: >-
        Write data.csv (150 rows, 4 numeric features on very different scales, a class column) generated
        with seed 7, and split.json with train and dev row indices (80/20, seed 7). Put their sha256 in
        results.json as data_hash and split_hash, with seed 7.
      max_steps: 15
    budget: { tokens: 150000 }
  - id: B2
    title: k-NN on raw features (baseline)
    kind: fast
    role: baseline
    worker:
      type: agent
      prompt: >-
        Using D1's data.csv and split.json unchanged, fit 5-NN on the train rows with raw features and
        report accuracy on the dev rows as dev_acc (metrics.jsonl and results.json, with the tuple).
      max_steps: 20
    budget: { tokens: 200000 }
  - id: M3
    title: k-NN on standardised features
    kind: fast
    role: train
    worker:
      type: agent
      prompt: >-
        Using D1's data.csv and split.json unchanged, standardise features with means and deviations of
        the train rows only, fit 5-NN and report dev accuracy as dev_acc (metrics.jsonl and results.json,
        with the tuple).
      max_steps: 20
    budget: { tokens: 200000 }
  - id: R4
    title: report
    kind: fast
    role: report
edges:
  - { from: P0, to: D1, kind: artifact }
  - { from: D1, to: B2, kind: artifact }
  - { from: D1, to: M3, kind: artifact }
  - { from: B2, to: R4, kind: artifact }
  - { from: M3, to: R4, kind: artifact }
`;

export function plannerSystemPrompt(): string {
  return [
    "You are Arrow's planner. Arrow supervises research agents: it turns a research question into a task",
    "graph (a plan), LLM agents work the nodes in sandboxes, and Arrow checks every result itself (file",
    "hashes, metric trajectories, exit codes, the comparability tuple data_hash/split_hash/protocol_version/",
    "seed). Your job: write the plan for the user's question.",
    "",
    "Reply with the plan only, as YAML in one ```yaml fenced block. The format (every other key is an error):",
    "",
    // The mock path's simulation knobs and Slurm options mean nothing to a live plan.
    ...outline(planSchema, ["mock", "slurm"]),
    "",
    "Rules for a good plan:",
    "- One node per piece of work, ids short (N0, N1, …). Roles: protocol fixes metric and seed; data writes",
    "  the data set and the split (once: every later node uses those exact files); baseline is the reference",
    "  method; train is the method under test; eval, analysis, report, ablation as named.",
    "- A baseline node and at least one train node, fed by the same data node, so the answer is comparable.",
    "- Every node that does work has worker {type: agent, prompt: …}: the prompt is a precise task naming",
    "  the input node(s) it reads, what to compute, and the metric to report. Nodes of roles protocol,",
    "  harness, analysis and report may have no worker.",
    "- Give each agent node budget {tokens: N} (100000–400000) and max_steps (10–40).",
    "- Use the default acceptance (leave it out), kind fast unless a node trains for minutes and writes",
    "  checkpoints (kind long).",
    "- Edges: an artifact edge from each node to every node that reads its files. No cycles; a deliberate",
    "  retry loop is a back_edge with laps at most 3.",
    "- protocol.metric is one name (snake_case) every scored node reports; direction maximize or minimize.",
    "",
    "An example for a different question:",
    "```yaml",
    EXAMPLE_PLAN.trimEnd(),
    "```",
  ].join("\n");
}

export function repairMessage(diagnostics: string[], total: number): string {
  const more = total > diagnostics.length ? `\n(and ${total - diagnostics.length} more)` : "";
  return [
    "Arrow's plan loader rejected your plan (file:line:col: problem):",
    ...diagnostics,
  ].join("\n") + more +
    "\n\nReply with the whole corrected plan, as YAML in one ```yaml fenced block, and nothing else.";
}
