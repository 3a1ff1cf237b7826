/**
 * The LLM room: an OpenAI-compatible client, the agent loop and its config, the planner, the proxy, bait
 * decoys, and the usage and transcript records they share.
 *
 * @module
 */
export { type AgentDeps, type AgentOutcome, MAX_OUTPUT, MAX_REPLY, runAgent } from "./agent.ts";
export { type Bait, BAIT_KINDS, type BaitKind, BAITS, baitTarget } from "./bait.ts";
export { type CallOptions, type Chat, type ClientOptions, LlmClient } from "./client.ts";
export {
  type AgentConfig,
  AgentConfigError,
  callId,
  type ComparabilityTuple,
  DEFAULT_COMMAND_TIMEOUT_S,
  DEFAULT_MAX_STEPS,
  type InputRef,
  parseAgentConfig,
} from "./config.ts";
export { chooseModel, DEFAULT_BASE_URL, type LlmSettings, llmSettings } from "./env.ts";
export { LlmConfigError, LlmError, type LlmErrorKind } from "./errors.ts";
export { transcriptPath, usagePath } from "./paths.ts";
export {
  extractYaml,
  PlanError,
  planFromQuestion,
  type PlannerOptions,
  type PlanOutcome,
} from "./planner.ts";
export { attribute, proxyHandler, type ProxyOptions, type ProxyServer, startProxy } from "./proxy.ts";
export type { CallRecord, CommandRecord, EventRecord, TranscriptRecord } from "./transcript.ts";
export type { ChatMessage, ChatRequest, ChatResult, Usage } from "./types.ts";
export { UsageLedger, type UsageLine, usedTokens } from "./usage.ts";
