/**
 * Resume without repeating a call: what an earlier run of the same attempt already did, read from its
 * transcript — the replies it was given (by step) and the commands that finished — and usage lines that a
 * crash kept from being written, restored from the transcript so no call goes unbilled or is billed twice.
 *
 * @module
 */
import type { AgentConfig } from "./config.ts";
import { type CallRecord, type CommandRecord, readAttempt } from "./transcript.ts";
import { appendUsage, UsageLedger, usageLine } from "./usage.ts";

export interface Past {
  /** Answered calls by step. */
  calls: Map<number, CallRecord>;
  /** Finished (or interrupted) commands by step. */
  commands: Map<number, CommandRecord>;
}

export function readPast(cfg: AgentConfig): Past {
  const calls = new Map<number, CallRecord>();
  const commands = new Map<number, CommandRecord>();
  for (const r of readAttempt(cfg.transcript, cfg.node, cfg.attempt)) {
    if (r.type === "call" && r.response && typeof r.step === "number") calls.set(r.step, r);
    if (r.type === "command" && typeof r.step === "number") commands.set(r.step, r);
  }
  return { calls, commands };
}

/** Appends the usage line of every recorded call the usage file lacks (the worker died between the two). */
export function restoreUsage(cfg: AgentConfig, past: Past): number {
  const ledger = new UsageLedger(cfg.usage);
  let restored = 0;
  for (const c of past.calls.values()) {
    if (ledger.has(c.call)) continue;
    appendUsage(cfg.usage, usageLine(c.call, c.usage, c.model, c.latency_ms, "worker"));
    restored++;
  }
  return restored;
}
