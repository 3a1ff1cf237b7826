/**
 * Settings from the environment, so one build talks to OpenRouter, OpenAI, vLLM, Ollama or llama.cpp's
 * server with no code change: ARROW_LLM_BASE_URL, ARROW_LLM_API_KEY, ARROW_LLM_MODEL, ARROW_LLM_TIMEOUT_S,
 * ARROW_LLM_MAX_RETRIES.
 *
 * @module
 */
import { LlmConfigError } from "./errors.ts";

export const DEFAULT_BASE_URL = "https://openrouter.ai/api/v1";
export const DEFAULT_TIMEOUT_S = 120;
export const DEFAULT_MAX_RETRIES = 4;

export interface LlmSettings {
  baseUrl: string;
  apiKey: string;
  /** ARROW_LLM_MODEL, the model when neither the plan nor a flag names one. */
  model: string | null;
  timeoutMs: number;
  maxRetries: number;
}

type Env = (name: string) => string | undefined;

function wholeNumber(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env(name);
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) {
    throw new LlmConfigError(`Cannot use ${name}="${raw}": expected a whole number from ${min} to ${max}`);
  }
  return n;
}

/** A base URL without a trailing slash; throws LlmConfigError naming the variable when it is not http(s). */
export function baseUrlFrom(raw: string, name = "ARROW_LLM_BASE_URL"): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new LlmConfigError(`Cannot use ${name}="${raw}": not a URL (e.g. ${DEFAULT_BASE_URL})`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new LlmConfigError(`Cannot use ${name}="${raw}": expected an http:// or https:// URL`);
  }
  return url.href.replace(/\/+$/, "");
}

/** Reads the settings; a missing API key is a LlmConfigError that names ARROW_LLM_API_KEY. */
export function llmSettings(env: Env = (k) => Deno.env.get(k)): LlmSettings {
  const apiKey = env("ARROW_LLM_API_KEY")?.trim() ?? "";
  if (!apiKey) {
    throw new LlmConfigError(
      "Cannot call the LLM: ARROW_LLM_API_KEY is not set. Set it to your provider's API key (any non-empty " +
        "value for a local server such as Ollama, vLLM or llama.cpp) and ARROW_LLM_BASE_URL to its endpoint " +
        `(default ${DEFAULT_BASE_URL}).`,
    );
  }
  const model = env("ARROW_LLM_MODEL")?.trim() || null;
  return {
    baseUrl: baseUrlFrom(env("ARROW_LLM_BASE_URL")?.trim() || DEFAULT_BASE_URL),
    apiKey,
    model,
    timeoutMs: wholeNumber(env, "ARROW_LLM_TIMEOUT_S", DEFAULT_TIMEOUT_S, 1, 3600) * 1000,
    maxRetries: wholeNumber(env, "ARROW_LLM_MAX_RETRIES", DEFAULT_MAX_RETRIES, 0, 20),
  };
}

/** The model to use: the first given of flag/plan, else ARROW_LLM_MODEL; none is a LlmConfigError. */
export function chooseModel(settings: LlmSettings, ...preferred: (string | undefined | null)[]): string {
  const model = preferred.find((m) => typeof m === "string" && m.trim() !== "")?.trim() ?? settings.model;
  if (!model) {
    throw new LlmConfigError(
      "Cannot choose a model: pass --model, set worker.model in the plan, or set ARROW_LLM_MODEL " +
        '(e.g. "openai/gpt-4o-mini" on OpenRouter, "llama3.1" on Ollama)',
    );
  }
  return model;
}
