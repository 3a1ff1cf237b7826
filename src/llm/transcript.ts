/**
 * Transcripts: every API call (the request's new messages, the response, usage, latency) and every command
 * (argv, exit, bounded output) an agent made, one JSON line each, secrets redacted and strings bounded. The
 * same format serves the agent worker (replayed on resume) and the proxy (evidence only).
 *
 * @module
 */
import type { ExecResult } from "./exec.ts";
import { appendJsonl, readJsonl } from "./jsonl.ts";
import type { Redactor } from "./redact.ts";
import type { Usage } from "./types.ts";

/** A message as recorded: roles other than the four chat roles occur through the proxy. */
export interface RecordedMessage {
  role: string;
  content: string;
}

/** Longest string kept in a transcript line; agent replies and command feedback are bounded below it. */
export const MAX_FIELD = 64 << 10;

export interface CallRecord {
  type: "call";
  call: string;
  node: string;
  /** Attempt and step of an agent worker's call; null for calls seen by the proxy. */
  attempt: number | null;
  step: number | null;
  via: "worker" | "proxy" | "planner";
  model: string;
  /** Messages new since the previous call of this conversation: request = earlier ones + these. */
  request: { n_messages: number; from: number; messages: RecordedMessage[] };
  response: { content: string; finish_reason: string | null } | null;
  /** HTTP status the client saw (proxy) or null. */
  status: number | null;
  error: string | null;
  usage: Usage | null;
  latency_ms: number;
  /** HTTP attempts behind this call (retries on 429/5xx included). */
  attempts: number;
  t: string;
}

/** One command the agent ran: what exec.ts measured of it (output clipped), and whether a restart cut it. */
export interface CommandRecord extends
  Pick<
    ExecResult,
    "stdout" | "stderr" | "stdout_bytes" | "stderr_bytes" | "timed_out" | "ms"
  > {
  type: "command";
  call: string;
  node: string;
  attempt: number;
  step: number;
  argv: string[];
  /** Null when the command was killed (timeout, stop) or interrupted by a restart. */
  exit: number | null;
  /** The worker was restarted while this command ran: it was not run again. */
  interrupted: boolean;
  t: string;
}

export interface EventRecord {
  type: "start" | "end";
  node: string;
  attempt: number;
  lap?: number;
  model?: string;
  max_steps?: number;
  /** start: calls and commands replayed from this transcript instead of being made again. */
  replayed?: { calls: number; commands: number };
  /** end: done | max_steps | stopped | error */
  reason?: string;
  steps?: number;
  error?: string;
  t: string;
}

export type TranscriptRecord = CallRecord | CommandRecord | EventRecord;

/** A string cut to `max` characters, saying how much was left out. */
export function clip(s: string, max = MAX_FIELD): string {
  if (s.length <= max) return s;
  const keep = max - 40;
  return `${s.slice(0, keep)}\n…[${s.length - keep} more characters not kept]`;
}

function bound<T>(v: T): T {
  if (typeof v === "string") return clip(v) as T;
  if (Array.isArray(v)) return v.map(bound) as T;
  if (v && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, bound(x)])) as T;
  }
  return v;
}

export class Transcript {
  constructor(readonly path: string, readonly redactor: Redactor) {}

  append(record: TranscriptRecord): void {
    appendJsonl(this.path, bound(this.redactor.deep(record)));
  }
}

/** Records of one node's attempt, in file order (other nodes' and attempts' lines are left out). */
export function readAttempt(path: string, node: string, attempt: number): TranscriptRecord[] {
  return readJsonl(path).records.filter((r) =>
    r.node === node && r.attempt === attempt
  ) as unknown as TranscriptRecord[];
}
