/**
 * `arrow proxy --run <run>`: serve the OpenAI-compatible proxy for a run until Ctrl-C, so any agent
 * framework pointed at it has its calls attributed to nodes, recorded as evidence and held to the nodes'
 * token budgets.
 *
 * @module
 */
import { baseUrlFrom, llmSettings } from "../llm/env.ts";
import { LlmConfigError } from "../llm/errors.ts";
import { startProxy } from "../llm/proxy.ts";
import { intFlag, parse } from "./args.ts";
import { InputError, UsageError } from "./errors.ts";
import { onInterrupt } from "./interrupt.ts";
import { exists, resolveRunDir } from "./rundir.ts";

export const DEFAULT_PROXY_PORT = 8790;

export const help =
  `Usage: arrow proxy --run <run-dir | run-id | latest> [--runs-dir D] [--port P] [--upstream URL]

An OpenAI-compatible pass-through for agent frameworks that make their own LLM calls. Point the framework's
base URL at http://127.0.0.1:P/v1 and give it the API key "arrow:<node>" (or send the header
"X-Arrow-Node: <node>"): each call is attributed to that node of the run, forwarded upstream with the real
key (ARROW_LLM_API_KEY), streamed back as it arrives, recorded under <run>/logs/agent/<node>.jsonl (secrets
redacted), and its usage appended to <run>/.arrow/usage/<node>.jsonl, where the engine reads it. Once a node
has spent its budget.tokens, further calls get HTTP 429 with a JSON error saying so.

Options:
  --run <dir>       The run directory (or a run id under the runs directory, or "latest"); its plan.yaml
                    names the nodes
  --runs-dir <dir>  Where to look up a run id or "latest" (default ./runs)
  --port <n>        Port on 127.0.0.1 (default ${DEFAULT_PROXY_PORT}; 0 picks a free one)
  --upstream <url>  Upstream base URL (default ARROW_LLM_BASE_URL, else https://openrouter.ai/api/v1)
  -h, --help

Runs until Ctrl-C (exit 0).`;

function runDirOf(arg: string, runsDir: string | undefined): string {
  if (exists(`${arg}/plan.yaml`)) return Deno.realPathSync(arg);
  return resolveRunDir(arg, runsDir);
}

export async function main(argv: string[]): Promise<number> {
  const { values } = parse("proxy", argv, {
    run: { type: "string" },
    port: { type: "string" },
    upstream: { type: "string" },
    "runs-dir": { type: "string" },
  }, 0);
  if (!values.run) throw new UsageError("arrow proxy: --run <run-dir> is required (see arrow proxy --help)");
  const runDir = runDirOf(values.run as string, values["runs-dir"] as string | undefined);
  const port = intFlag("proxy", "port", values.port, 0, DEFAULT_PROXY_PORT, 65535);
  let settings, upstream;
  try {
    settings = llmSettings();
    upstream = values.upstream ? baseUrlFrom(values.upstream as string, "--upstream") : settings.baseUrl;
  } catch (e) {
    if (e instanceof LlmConfigError) throw new InputError(`arrow proxy: ${e.message}`);
    throw e;
  }
  using stop = onInterrupt();
  let server;
  try {
    server = await startProxy({ runDir, upstream, apiKey: settings.apiKey, port });
  } catch (e) {
    if (e instanceof LlmConfigError) throw new InputError(`arrow proxy: ${e.message}`);
    if (e instanceof Deno.errors.AddrInUse) {
      throw new InputError(
        `arrow proxy: port ${port} is in use; pick another with --port (0 = any free port)`,
      );
    }
    throw e;
  }
  console.log(`arrow proxy: ${server.url} → ${upstream} for run ${runDir}`);
  console.log(`point an agent at it: OPENAI_BASE_URL=${server.url} OPENAI_API_KEY=arrow:<node>`);
  await new Promise<void>((r) => stop.signal.addEventListener("abort", () => r(), { once: true }));
  await server.close();
  console.log("arrow proxy: stopped");
  return 0;
}
