/**
 * `arrow plan "<question>"`: one LLM call turns a research question into a plan, validated by the same
 * loader as `arrow validate` (one repair round on errors), written atomically to a file the user can edit
 * and run. A plan that stays invalid is a clear failure and nothing is written.
 *
 * @module
 */
import { connectLlm } from "../llm/connect.ts";
import { LlmConfigError, LlmError } from "../llm/errors.ts";
import { extractYaml, PlanError, planFromQuestion } from "../llm/planner.ts";
import { writeAtomic } from "../runtime/atomic.ts";
import { parse } from "./args.ts";
import { InputError, UsageError } from "./errors.ts";
import { printable } from "./escape.ts";
import { exists } from "./rundir.ts";

export const help = `Usage: arrow plan "<question>" [-o plan.yaml] [--model M] [--force]

Asks an LLM to turn a research question into an Arrow plan (a task graph with LLM agent workers), checks it
with the same loader as arrow validate, sends any file:line:col problems back once for repair, and writes
the valid plan. Edit it freely, then: arrow validate plan.yaml; arrow run plan.yaml --live. A plan still
invalid after the repair round is not written there: it goes to plan.rejected.yaml, which the printed
file:line:col problems cite, so each opens where it is.

Options:
  -o, --output <file>  Where to write the plan (default plan.yaml); never half-written
  --model <name>       Model to ask (default: ARROW_LLM_MODEL)
  --force              Replace an existing output file
  -h, --help

Environment:
  ARROW_LLM_API_KEY    API key (required; any non-empty value for a local server)
  ARROW_LLM_BASE_URL   OpenAI-compatible endpoint (default https://openrouter.ai/api/v1; e.g.
                       https://api.openai.com/v1, http://localhost:11434/v1 for Ollama,
                       http://localhost:8000/v1 for vLLM, http://localhost:8080/v1 for llama.cpp)
  ARROW_LLM_MODEL      Model when --model is not given
  ARROW_LLM_TIMEOUT_S, ARROW_LLM_MAX_RETRIES  Per-call timeout (default 120) and retries (default 4)

Exit 0 when the plan is written, 1 when it could not be (the problems are printed).`;

/** Model text in a terminal: control characters shown, not obeyed. */
const safe = (s: string) => printable(s, { max: 2000 });

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse("plan", argv, {
    output: { type: "string", short: "o" },
    model: { type: "string" },
    force: { type: "boolean" },
  }, 1);
  const question = positionals[0]?.trim();
  if (!question) {
    throw new UsageError('arrow plan: missing the question, e.g. arrow plan "Does X beat Y on Z?"');
  }
  const output = (values.output as string | undefined) ?? "plan.yaml";
  if (exists(output) && !values.force) {
    throw new InputError(`arrow plan: ${output} exists; pass --force to replace it or -o to write elsewhere`);
  }
  const dir = output.includes("/") ? output.slice(0, output.lastIndexOf("/")) || "/" : ".";
  if (!exists(dir)) throw new InputError(`arrow plan: cannot write ${output}: no directory ${dir}`);
  let connected;
  try {
    connected = connectLlm("planner", values.model as string | undefined);
  } catch (e) {
    if (e instanceof LlmConfigError) throw new InputError(`arrow plan: ${e.message}`);
    throw e;
  }
  const { client, model } = connected;
  try {
    const out = await planFromQuestion(question, { client, model, file: output });
    writeAtomic(output, out.text);
    const tokens = out.calls.reduce((n, c) => n + (c.result.usage?.total_tokens ?? 0), 0);
    for (const w of out.warnings) console.log(`${safe(w)} (warning)`);
    const repaired = out.rounds > 1 ? " after one repair round" : "";
    console.log(
      `arrow plan: wrote ${output} (${out.plan.nodes.length} nodes, ${out.plan.edges.length} edges)${repaired}, ` +
        `${out.calls.length} call(s), ${tokens} tokens (${model})`,
    );
    console.log(`next: arrow validate ${output} && arrow run ${output} --live`);
    return 0;
  } catch (e) {
    if (e instanceof PlanError) {
      const last = e.calls.at(-1);
      if (!last) throw new InputError(`arrow plan: ${e.message}; nothing written`);
      // The problems cite the output path; the rejected text goes beside it, and the citations follow it.
      const rejected = output.replace(/(\.ya?ml)?$/i, ".rejected.yaml");
      writeAtomic(rejected, extractYaml(last.result.content));
      const cited = e.diagnostics.slice(0, 50).map((d) =>
        safe(d.startsWith(`${output}:`) ? rejected + d.slice(output.length) : d)
      );
      throw new InputError(
        `arrow plan: ${e.message}; ${output} not written, the rejected plan is in ${rejected}`,
        cited,
      );
    }
    if (e instanceof LlmError) throw new InputError(`arrow plan: ${safe(e.message)}; nothing written`);
    throw e;
  }
}
