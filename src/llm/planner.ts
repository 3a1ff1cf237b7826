/**
 * The planner: one LLM call turns a research question into a plan, which the same loader as `arrow
 * validate` checks; on errors, one repair round sends the file:line:col messages back. The result is a
 * validated Plan and its YAML text, or a PlanError carrying the remaining problems — never a half plan.
 *
 * @module
 */
import { formatDiagnostic, loadPlan } from "../graph/load.ts";
import type { Plan } from "../graph/types.ts";
import type { Chat } from "./client.ts";
import { plannerSystemPrompt, repairMessage } from "./plan_prompt.ts";
import { Redactor } from "./redact.ts";
import { Transcript } from "./transcript.ts";
import type { ChatMessage, ChatResult } from "./types.ts";

/** Largest plan reply accepted. */
export const MAX_PLAN_REPLY = 256 << 10;
/** Problems sent back in the repair round. */
const MAX_DIAGNOSTICS = 30;

export interface PlannerOptions {
  client: Chat;
  model: string;
  /** Name the diagnostics use (the file the plan will be written to). */
  file: string;
  signal?: AbortSignal;
  /** Require at least one agent worker (a live plan); default true. */
  requireAgent?: boolean;
}

export interface PlannerCall {
  messages: ChatMessage[];
  result: ChatResult;
}

export interface PlanOutcome {
  plan: Plan;
  /** The YAML text, exactly as validated. */
  text: string;
  /** 1 when the first reply was valid, 2 after the repair round. */
  rounds: number;
  warnings: string[];
  calls: PlannerCall[];
}

/** The model's plan stayed invalid (or unreadable) after the repair round. */
export class PlanError extends Error {
  override name = "PlanError";
  constructor(message: string, readonly diagnostics: string[], readonly calls: PlannerCall[]) {
    super(message);
  }
}

/** The YAML of a reply: its first ```yaml block, else its first fenced block, else the whole text. */
export function extractYaml(reply: string): string {
  const blocks = [...reply.matchAll(/^```[ \t]*([A-Za-z]*)[^\n]*\n([\s\S]*?)^```[ \t]*$/gm)];
  const yaml = blocks.find((b) => /^ya?ml$/i.test(b[1]!)) ?? blocks[0];
  const text = yaml ? yaml[2]! : reply.trim();
  return text.endsWith("\n") ? text : `${text}\n`;
}

function check(text: string, file: string, requireAgent: boolean) {
  if (text.length > MAX_PLAN_REPLY) {
    return { errors: [`${file}:1:1: the plan is larger than ${MAX_PLAN_REPLY} bytes`], warnings: [] };
  }
  const r = loadPlan(text, file);
  const errors = r.errors.map(formatDiagnostic);
  if (!errors.length && requireAgent && !r.plan!.nodes.some((n) => n.worker?.type === "agent")) {
    errors.push(
      `${file}:1:1: no node has an agent worker (worker: {type: agent, prompt: …}); a live plan needs one`,
    );
  }
  return { plan: r.plan, errors, warnings: r.warnings.map(formatDiagnostic) };
}

/** Question → validated plan, in one call plus at most one repair call. */
export async function planFromQuestion(question: string, o: PlannerOptions): Promise<PlanOutcome> {
  const q = question.trim();
  if (!q) throw new PlanError("Cannot plan: the question is empty", [], []);
  const messages: ChatMessage[] = [
    { role: "system", content: plannerSystemPrompt() },
    { role: "user", content: `Research question: ${q}` },
  ];
  const calls: PlannerCall[] = [];
  let last: string[] = [];
  for (let round = 1; round <= 2; round++) {
    const sent = messages.slice();
    const result = await o.client.chat({ model: o.model, messages: sent, temperature: 0 }, {
      signal: o.signal,
    });
    calls.push({ messages: sent, result });
    const text = extractYaml(result.content);
    const r = check(text, o.file, o.requireAgent ?? true);
    if (r.plan && !r.errors.length) return { plan: r.plan, text, rounds: round, warnings: r.warnings, calls };
    last = r.errors;
    messages.push(
      { role: "assistant", content: result.content.slice(0, MAX_PLAN_REPLY) },
      { role: "user", content: repairMessage(last.slice(0, MAX_DIAGNOSTICS), last.length) },
    );
  }
  throw new PlanError(
    `Cannot plan: the model's plan is still invalid after one repair round (${last.length} problem(s))`,
    last,
    calls,
  );
}

/**
 * Writes the planner's calls as transcript lines (node "planner", calls planner:1, planner:2), e.g. to
 * `<run>/logs/agent/planner.jsonl` when a research run starts from a question.
 */
export function recordPlannerCalls(path: string, calls: PlannerCall[], secrets: string[] = []): void {
  const tr = new Transcript(path, new Redactor(secrets));
  let sent = 0;
  calls.forEach((c, i) => {
    tr.append({
      type: "call",
      call: `planner:${i + 1}`,
      node: "planner",
      attempt: null,
      step: i + 1,
      via: "planner",
      model: c.result.model,
      request: { n_messages: c.messages.length, from: sent, messages: c.messages.slice(sent) },
      response: { content: c.result.content, finish_reason: c.result.finish_reason },
      status: 200,
      error: null,
      usage: c.result.usage,
      latency_ms: c.result.latency_ms,
      attempts: c.result.attempts,
      t: new Date().toISOString(),
    });
    sent = c.messages.length;
  });
}
