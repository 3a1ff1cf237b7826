/**
 * The agent worker process: reads its AgentConfig from ARROW_CONFIG, talks to the OpenAI-compatible
 * endpoint named by ARROW_LLM_BASE_URL / ARROW_LLM_API_KEY, runs the agent loop in the node's sandbox and
 * records usage and the transcript. Exit 0 after DONE (Arrow then checks results.json), 1 when the agent
 * failed (LLM error, step limit), 2 for a bad config, 143 when stopped.
 *
 * @module
 */
import { runAgent } from "../llm/agent.ts";
import { AgentConfigError, parseAgentConfig } from "../llm/config.ts";
import { connectLlm } from "../llm/connect.ts";
import { LlmConfigError } from "../llm/errors.ts";
import { Fingerprinter } from "../runtime/scope/fingerprint.ts";

export async function main(_args: string[] = []): Promise<number> {
  let cfg;
  try {
    cfg = parseAgentConfig(Deno.env.get("ARROW_CONFIG"));
  } catch (e) {
    if (!(e instanceof AgentConfigError)) throw e;
    console.error(`arrow agent: ${e.message}`);
    return 2;
  }
  let connected;
  try {
    connected = connectLlm(`${cfg.node}:${cfg.attempt}`, cfg.args.model);
  } catch (e) {
    if (!(e instanceof LlmConfigError)) throw e;
    console.error(`arrow agent ${cfg.node}: ${e.message}`);
    return 1;
  }
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  Deno.addSignalListener("SIGTERM", onSignal);
  Deno.addSignalListener("SIGINT", onSignal);
  // An agent whose arrow died stops at once: no call is made (or billed) that no overwatch sees.
  // `arrow resume` restarts it, and it continues from its transcript.
  const parent = Deno.ppid;
  const orphaned = setInterval(() => {
    if (Deno.ppid !== parent) stop.abort();
  }, 200);
  try {
    const { client, model, settings } = connected;
    // Each step is recorded with the scope's fingerprint after it: the engine sees the agent in its own time.
    const prints = new Fingerprinter();
    let out;
    try {
      out = await runAgent(cfg, {
        client,
        model,
        signal: stop.signal,
        secrets: [settings.apiKey],
        stream: Deno.env.get("ARROW_LLM_STREAM") === "1",
        fingerprint: (dir) => prints.scan(dir).fp,
      });
    } catch (e) {
      console.error(`arrow agent ${cfg.node}: internal error: ${(e as Error)?.stack ?? e}`);
      return 2;
    }
    const replayed = out.replayed.calls ? `, ${out.replayed.calls} replayed from the transcript` : "";
    const what = `${out.steps} step(s), ${out.calls} call(s)${replayed}`;
    switch (out.reason) {
      case "done":
        console.error(`arrow agent ${cfg.node}: DONE after ${what}`);
        return 0;
      case "max_steps":
        console.error(`arrow agent ${cfg.node}: step limit ${out.steps} reached without DONE (${what})`);
        return 1;
      case "stopped":
        console.error(`arrow agent ${cfg.node}: stopped after ${what}`);
        return 143;
      case "error":
        console.error(`arrow agent ${cfg.node}: ${out.error} (${what})`);
        return 1;
    }
  } finally {
    clearInterval(orphaned);
    Deno.removeSignalListener("SIGTERM", onSignal);
    Deno.removeSignalListener("SIGINT", onSignal);
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
