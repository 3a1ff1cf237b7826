/**
 * What an agent worker is told at start (the ARROW_CONFIG environment variable, JSON): the node, its lane,
 * its inputs, the protocol, the agent's task, and where to record usage and the transcript. The engine's
 * launcher builds it; `parseAgentConfig` checks it so a bad config fails with a clear message.
 *
 * @module
 */

import type { ComparabilityTuple, InputRef, LaneConfig } from "../graph/lane.ts";
export type { ComparabilityTuple, InputRef } from "../graph/lane.ts";

export interface AgentConfig extends LaneConfig {
  /** From the plan's `worker: {type: agent, prompt, model, max_steps}`. */
  args: { prompt: string; model?: string; max_steps?: number };
  /** Worker-side faults aimed at this attempt; the loop ignores them (commands see ARROW_FAULTS if set). */
  faults: { kind: string; node: string; [key: string]: unknown }[];
  /** argv prefix: each command runs as [...sandbox, "bash", "-c", cmd] with the scope as cwd. */
  sandbox: string[];
  /** File to append one usage line per API call to (the engine sums it per node). */
  usage: string;
  /** File to append transcript lines to (calls and commands, secrets redacted). */
  transcript: string;
  /** Adversarial nudge appended to the task (arrow research --bait). */
  bait?: string;
  /** The frozen comparability tuple, once frozen. */
  frozen?: ComparabilityTuple | null;
  /** Seconds one command may run before its process group is killed (default 600). */
  command_timeout_s?: number;
}

export const DEFAULT_MAX_STEPS = 30;
export const DEFAULT_COMMAND_TIMEOUT_S = 600;

/** A config field that is missing or of the wrong type. */
export class AgentConfigError extends Error {
  override name = "AgentConfigError";
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);

function need(cond: boolean, field: string, what: string): void {
  if (!cond) {
    throw new AgentConfigError(`Cannot start the agent: ARROW_CONFIG field "${field}" must be ${what}`);
  }
}

const isStr = (v: unknown): v is string => typeof v === "string" && v.length > 0;
const isAbs = (v: unknown): v is string => isStr(v) && v.startsWith("/");
const isInt = (v: unknown, min: number) => typeof v === "number" && Number.isInteger(v) && v >= min;

function refs(v: unknown, field: string): Record<string, InputRef> {
  need(isObj(v), field, "an object {nodeId: {scope, role}}");
  for (const [id, r] of Object.entries(v as Obj)) {
    need(
      isObj(r) && isAbs(r.scope) && typeof r.role === "string",
      `${field}.${id}`,
      "{scope: absolute path, role}",
    );
  }
  return v as Record<string, InputRef>;
}

/** Checks a config read from ARROW_CONFIG; throws AgentConfigError naming the first bad field. */
export function parseAgentConfig(text: string | undefined): AgentConfig {
  if (!text) {
    throw new AgentConfigError(
      "Cannot start the agent: ARROW_CONFIG is not set (agents are started by arrow)",
    );
  }
  let c: unknown;
  try {
    c = JSON.parse(text);
  } catch (e) {
    throw new AgentConfigError(`Cannot start the agent: ARROW_CONFIG is not JSON (${(e as Error).message})`);
  }
  need(isObj(c), "(root)", "a JSON object");
  const o = c as Obj;
  need(isStr(o.node), "node", "a node id");
  need(typeof o.role === "string", "role", "a string");
  need(["fast", "long", "reactive"].includes(o.kind as string), "kind", 'one of "fast", "long", "reactive"');
  for (const f of ["scope", "nodes", "usage", "transcript"]) need(isAbs(o[f]), f, "an absolute path");
  refs(o.inputs, "inputs");
  refs(o.sources, "sources");
  const p = o.protocol as Obj;
  need(isObj(p) && isStr(p.version) && isStr(p.metric), "protocol", "{version, metric, direction}");
  need(
    p.direction === "maximize" || p.direction === "minimize",
    "protocol.direction",
    '"maximize" or "minimize"',
  );
  const a = o.args as Obj;
  need(isObj(a) && isStr(a.prompt), "args.prompt", "a non-empty string");
  need(a.model === undefined || isStr(a.model), "args.model", "a model name");
  need(a.max_steps === undefined || isInt(a.max_steps, 1), "args.max_steps", "a whole number ≥ 1");
  need(Array.isArray(o.faults), "faults", "an array");
  need(isInt(o.attempt, 1), "attempt", "a whole number ≥ 1");
  need(isInt(o.lap, 1), "lap", "a whole number ≥ 1");
  need(o.resume === null || isAbs(o.resume), "resume", "null or an absolute path");
  need(Array.isArray(o.sandbox) && o.sandbox.every(isStr), "sandbox", "an array of strings (argv prefix)");
  need(o.bait === undefined || typeof o.bait === "string", "bait", "a string");
  need(
    o.command_timeout_s === undefined || isInt(o.command_timeout_s, 1),
    "command_timeout_s",
    "a whole number ≥ 1",
  );
  return o as unknown as AgentConfig;
}

/** The id of the API call made at `step` of an attempt; a repeated id in the usage file is the same call. */
export function callId(node: string, attempt: number, step: number): string {
  return `${node}:${attempt}:${step}`;
}
