/**
 * The agent loop: one bash command per reply, run in the node's sandbox, its exit code and bounded output
 * fed back, until the agent says DONE or runs out of steps. Every call and command is recorded; a restarted
 * worker replays the transcript of its attempt instead of calling or running anything again.
 *
 * @module
 */
import type { Chat } from "./client.ts";
import { type AgentConfig, callId, DEFAULT_COMMAND_TIMEOUT_S } from "./config.ts";
import { LlmError } from "./errors.ts";
import { type ExecResult, runCommand } from "./exec.ts";
import { feedback, formatError, maxSteps, systemPrompt, taskMessage } from "./prompt.ts";
import { Redactor, secretValues } from "./redact.ts";
import { parseReply } from "./reply.ts";
import { readPast, restoreUsage } from "./replay.ts";
import { clip, type CommandRecord, Transcript } from "./transcript.ts";
import type { ChatMessage, ChatResult } from "./types.ts";
import { appendUsage, usageLine } from "./usage.ts";
import { commandEnv } from "./command_env.ts";
import { appendStep, runDirOf, stepsPath } from "./steps.ts";

/** Longest agent reply kept in the conversation (and so in the transcript, which replays it). */
export const MAX_REPLY = 32 << 10;
/** Output bytes kept per stream of a command (head and tail). */
export const MAX_OUTPUT = 16 << 10;

export interface AgentDeps {
  client: Chat;
  model: string;
  /** Aborted when the node is stopped: the call in flight and the running command end at once. */
  signal?: AbortSignal;
  /** Environment the commands start from (default: this process's); secret-looking variables are dropped. */
  env?: Record<string, string>;
  /** Values to redact besides the secret-looking variables of `env` (the API key). */
  secrets?: string[];
  stream?: boolean;
  exec?: (argv: string[], o: Parameters<typeof runCommand>[1]) => Promise<ExecResult>;
  /** Wall-clock stamps for transcript lines (evidence only, never a decision). */
  now?: () => string;
  /**
   * The scope's content fingerprint (the engine's own, runtime/scope/fingerprint.ts). With it, every step is
   * recorded with the fingerprint after it for the engine to judge (steps.ts); without it, none is.
   */
  fingerprint?: (dir: string) => string;
}

export type EndReason = "done" | "max_steps" | "stopped" | "error";

export interface AgentOutcome {
  reason: EndReason;
  /** Steps taken (replies received), replayed ones included. */
  steps: number;
  /** API calls made by this process (replayed ones excluded). */
  calls: number;
  replayed: { calls: number; commands: number };
  error?: string;
}

export async function runAgent(cfg: AgentConfig, deps: AgentDeps): Promise<AgentOutcome> {
  const max = maxSteps(cfg);
  const baseEnv = deps.env ?? Deno.env.toObject();
  const now = deps.now ?? (() => new Date().toISOString());
  const exec = deps.exec ?? runCommand;
  const tr = new Transcript(
    cfg.transcript,
    new Redactor([...(deps.secrets ?? []), ...secretValues(baseEnv)]),
  );
  const env = commandEnv(cfg, baseEnv);
  const past = readPast(cfg);
  restoreUsage(cfg, past);
  const ids = { node: cfg.node, attempt: cfg.attempt };
  const steps = stepsPath(runDirOf(cfg.nodes), cfg.node, cfg.attempt);
  /** Records a step that was not replayed whole: the engine counts each step number once. */
  const record = (step: number, usage: ChatResult["usage"] | null | undefined) => {
    if (!deps.fingerprint) return;
    appendStep(steps, {
      step,
      tokens: usage?.total_tokens ?? 0,
      cost: usage?.cost ?? null,
      fp: deps.fingerprint(cfg.scope),
    });
  };
  tr.append({
    type: "start",
    ...ids,
    lap: cfg.lap,
    model: deps.model,
    max_steps: max,
    replayed: { calls: past.calls.size, commands: past.commands.size },
    t: now(),
  });
  const messages: ChatMessage[] = [
    { role: "system", content: systemPrompt(cfg) },
    { role: "user", content: taskMessage(cfg) },
  ];
  const out: AgentOutcome = { reason: "max_steps", steps: 0, calls: 0, replayed: { calls: 0, commands: 0 } };
  const end = (reason: EndReason, error?: string): AgentOutcome => {
    out.reason = reason;
    if (error) out.error = error;
    tr.append({ type: "end", ...ids, reason, steps: out.steps, ...(error ? { error } : {}), t: now() });
    if (deps.fingerprint) appendStep(steps, { end: reason, steps: out.steps });
    return out;
  };
  let sent = 0;
  for (let step = 1; step <= max; step++) {
    if (deps.signal?.aborted) return end("stopped");
    const call = callId(cfg.node, cfg.attempt, step);
    const known = past.calls.get(step);
    let content: string;
    let usage: ChatResult["usage"] | null = null;
    if (known) {
      content = known.response!.content;
      usage = known.usage;
      out.replayed.calls++;
    } else {
      const request = { n_messages: messages.length, from: sent, messages: messages.slice(sent) };
      let r: ChatResult;
      try {
        r = await deps.client.chat({ model: deps.model, messages, stream: deps.stream }, {
          signal: deps.signal,
        });
      } catch (e) {
        const err = e instanceof LlmError ? e : new LlmError(String(e), "network", false);
        tr.append({
          type: "call",
          call,
          ...ids,
          step,
          via: "worker",
          model: deps.model,
          request,
          response: null,
          status: err.status,
          error: err.message,
          usage: null,
          latency_ms: 0,
          attempts: err.attempts,
          t: now(),
        });
        return err.kind === "aborted" ? end("stopped") : end("error", err.message);
      }
      content = clip(r.content, MAX_REPLY);
      usage = r.usage;
      // Transcript first, usage second: a crash between the two is repaired by restoreUsage on resume.
      tr.append({
        type: "call",
        call,
        ...ids,
        step,
        via: "worker",
        model: r.model,
        request,
        response: { content, finish_reason: r.finish_reason },
        status: 200,
        error: null,
        usage: r.usage,
        latency_ms: r.latency_ms,
        attempts: r.attempts,
        t: now(),
      });
      appendUsage(cfg.usage, usageLine(call, r.usage, r.model, r.latency_ms, "worker"));
      out.calls++;
    }
    out.steps = step;
    sent = messages.length;
    messages.push({ role: "assistant", content });
    const reply = parseReply(content);
    if (reply.kind === "done") {
      if (!known) record(step, usage);
      return end("done");
    }
    if (reply.kind === "invalid") {
      if (!known) record(step, usage);
      messages.push({ role: "user", content: formatError(reply.reason, step, max) });
      continue;
    }
    const argv = [...cfg.sandbox, "bash", "-c", reply.command];
    let result: Pick<CommandRecord, "exit" | "stdout" | "stderr" | "timed_out" | "interrupted">;
    const done = past.commands.get(step);
    if (done) {
      result = done;
      out.replayed.commands++;
    } else if (known) {
      // The reply was recorded but its command never finished: a restart must not run it a second time.
      result = { exit: null, stdout: "", stderr: "", timed_out: false, interrupted: true };
      tr.append(
        commandRecord(call, ids, step, argv, { ...result, stdout_bytes: 0, stderr_bytes: 0, ms: 0 }, now()),
      );
    } else {
      let r: ExecResult;
      try {
        r = await exec(argv, {
          cwd: cfg.scope,
          env,
          timeoutMs: (cfg.command_timeout_s ?? DEFAULT_COMMAND_TIMEOUT_S) * 1000,
          maxBytes: MAX_OUTPUT,
          signal: deps.signal,
        });
      } catch (e) {
        // The sandbox itself cannot start (bwrap missing, scope gone): no command will run, so stop here.
        const why = `Cannot start the command with "${argv[0]}": ${(e as Error).message}`;
        const none = {
          exit: null,
          stdout: "",
          stderr: why,
          stdout_bytes: 0,
          stderr_bytes: why.length,
          ms: 0,
        };
        tr.append(
          commandRecord(call, ids, step, argv, { ...none, timed_out: false, interrupted: false }, now()),
        );
        return end("error", why);
      }
      result = { ...r, interrupted: r.stopped };
      tr.append(commandRecord(call, ids, step, argv, { ...r, interrupted: r.stopped }, now()));
      if (r.stopped) return end("stopped");
    }
    if (!done) record(step, usage);
    messages.push({ role: "user", content: feedback(result, step, max) });
  }
  return end("max_steps");
}

function commandRecord(
  call: string,
  ids: { node: string; attempt: number },
  step: number,
  argv: string[],
  r: Omit<ExecResult, "stopped"> & { interrupted: boolean },
  t: string,
): CommandRecord {
  return {
    type: "command",
    call,
    ...ids,
    step,
    argv,
    exit: r.exit,
    stdout: r.stdout,
    stderr: r.stderr,
    stdout_bytes: r.stdout_bytes,
    stderr_bytes: r.stderr_bytes,
    timed_out: r.timed_out,
    interrupted: r.interrupted,
    ms: r.ms,
    t,
  };
}
