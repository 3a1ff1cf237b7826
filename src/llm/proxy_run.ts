/**
 * What the proxy knows about the run it serves: the nodes and token budgets of its plan.yaml, each node's
 * usage ledger (`<run>/.arrow/usage/<node>.jsonl`, shared with the engine and agent workers) and transcript
 * (`<run>/logs/agent/<node>.jsonl`), and the last conversation seen per node (to record only new messages).
 *
 * @module
 */
import { formatDiagnostic, loadPlan } from "../graph/load.ts";
import { LlmConfigError } from "./errors.ts";
import { transcriptPath, usagePath } from "./paths.ts";
import { Redactor, secretValues } from "./redact.ts";
import type { RecordedMessage } from "./transcript.ts";
import { Transcript } from "./transcript.ts";
import { UsageLedger } from "./usage.ts";

export interface ProxyNode {
  id: string;
  /** budget.tokens of the plan, or null when the plan sets none. */
  budget: number | null;
  ledger: UsageLedger;
  transcript: Transcript;
  /** Messages of the previous call (as JSON), to find what a new call adds. */
  last: string[];
}

/** Reads the run's plan.yaml; a missing or invalid plan is a LlmConfigError saying which and why. */
export function proxyNodes(runDir: string, secrets: string[]): Map<string, ProxyNode> {
  const file = `${runDir}/plan.yaml`;
  let text: string;
  try {
    text = Deno.readTextFileSync(file);
  } catch {
    throw new LlmConfigError(`Cannot proxy for ${runDir}: no plan.yaml there (is it a run directory?)`);
  }
  const r = loadPlan(text, file);
  if (!r.plan) {
    throw new LlmConfigError(
      `Cannot proxy for ${runDir}: its plan.yaml is invalid: ${
        r.errors.slice(0, 3).map(formatDiagnostic).join("; ")
      }`,
    );
  }
  const redactor = new Redactor([...secrets, ...secretValues(Deno.env.toObject())]);
  return new Map(r.plan.nodes.map((n) => [n.id, {
    id: n.id,
    budget: n.budget.tokens ?? null,
    ledger: new UsageLedger(usagePath(runDir, n.id)),
    transcript: new Transcript(transcriptPath(runDir, n.id), redactor),
    last: [],
  }]));
}

/** A message of any OpenAI-style request as recorded: content that is not a string is kept as JSON. */
export function recordedMessage(m: unknown): RecordedMessage {
  const o = (m && typeof m === "object" ? m : {}) as Record<string, unknown>;
  const role = typeof o.role === "string" ? o.role.slice(0, 32) : "unknown";
  let content = typeof o.content === "string"
    ? o.content
    : o.content == null
    ? ""
    : JSON.stringify(o.content);
  if (o.tool_calls !== undefined) {
    content += `${content ? "\n" : ""}[tool_calls] ${JSON.stringify(o.tool_calls)}`;
  }
  return { role, content };
}

/** The messages a call adds to the node's previous conversation: everything after the common prefix. */
export function newMessages(node: ProxyNode, messages: RecordedMessage[]) {
  const keys = messages.map((m) => JSON.stringify(m));
  let from = 0;
  while (from < keys.length && from < node.last.length && keys[from] === node.last[from]) from++;
  node.last = keys;
  return { n_messages: messages.length, from, messages: messages.slice(from) };
}
