/**
 * The one way Arrow makes an LLM client: settings from the environment (`ARROW_LLM_*`), the model chosen
 * from the caller's preference and the settings, and a client seeded for its purpose (retry jitter replays
 * from the seed). Throws LlmConfigError when the environment does not name an endpoint, key or model.
 *
 * @module
 */
import { LlmClient } from "./client.ts";
import { chooseModel, type LlmSettings, llmSettings } from "./env.ts";

export interface Connected {
  client: LlmClient;
  model: string;
  settings: LlmSettings;
}

/** A client for `seed`'s purpose ("planner", "tree", "<node>:<attempt>"), preferring `model` when given. */
export function connectLlm(seed: string, ...preferred: (string | undefined | null)[]): Connected {
  const settings = llmSettings();
  const model = chooseModel(settings, ...preferred);
  const client = new LlmClient({
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey,
    timeoutMs: settings.timeoutMs,
    maxRetries: settings.maxRetries,
    seed,
  });
  return { client, model, settings };
}
