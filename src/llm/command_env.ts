/**
 * The environment an agent's command runs with: the worker's own minus anything secret (the API key,
 * ARROW_CONFIG, variables named like KEY, TOKEN or SECRET), plus the protocol's ARROW_* variables from the config,
 * so a command sees what any worker would and nothing it could leak.
 *
 * @module
 */
import type { AgentConfig } from "./config.ts";
import { isSecretName } from "./redact.ts";

export function commandEnv(cfg: AgentConfig, base: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (!isSecretName(k)) env[k] = v;
  const scopes = (refs: AgentConfig["inputs"]) =>
    JSON.stringify(Object.fromEntries(Object.entries(refs).map(([id, r]) => [id, r.scope])));
  Object.assign(env, {
    PATH: env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    ARROW_RUN_DIR: env.ARROW_RUN_DIR ?? cfg.nodes.replace(/\/nodes\/?$/, ""),
    ARROW_SCOPE: cfg.scope,
    ARROW_NODE: cfg.node,
    ARROW_ATTEMPT: String(cfg.attempt),
    ARROW_LAP: String(cfg.lap),
    ARROW_METRIC: cfg.protocol.metric,
    ARROW_DIRECTION: cfg.protocol.direction,
    ARROW_PROTOCOL_VERSION: cfg.protocol.version,
    ARROW_INPUTS: scopes(cfg.inputs),
    ARROW_SOURCES: scopes(cfg.sources),
    PYTHONDONTWRITEBYTECODE: "1",
    NO_COLOR: "1",
    RUST_BACKTRACE: "0",
  });
  if (cfg.resume) env.ARROW_RESUME_FROM = cfg.resume;
  if (cfg.frozen) env.ARROW_FROZEN = JSON.stringify(cfg.frozen);
  return env;
}
