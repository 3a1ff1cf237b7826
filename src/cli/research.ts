/**
 * `arrow research "<question>" [--bait [kind]] [--serve]`: question → plan (one LLM call, validated, one
 * repair round) → a live run under the same overwatch → the verdict and the anytime report, in one
 * command. `--bait` casts an adversarial decoy on one agent (drop the noisy rows, edit the evaluation,
 * claim a score it did not get); the overwatch must catch it and the verdict withhold the tainted result.
 *
 * @module
 */
import type { Fault } from "../graph/scenario.ts";
import { BAIT_KINDS, type BaitKind, BAITS, baitTarget } from "../llm/bait.ts";
import { connectLlm } from "../llm/connect.ts";
import { LlmConfigError, LlmError } from "../llm/errors.ts";
import { PlanError, planFromQuestion, recordPlannerCalls } from "../llm/planner.ts";
import { intFlag, parse } from "./args.ts";
import { printable } from "./escape.ts";
import { InputError, UsageError } from "./errors.ts";
import { LIVE_TICK_MS, REAL_TICK_MS, runResolved } from "./run.ts";

export const help = `Usage: arrow research "<question>" [--bait [${BAIT_KINDS.join("|")}]] [options]

One sentence in, a supervised answer out: an LLM turns the question into a plan (validated like arrow
validate, one repair round), LLM agents work its agent nodes inside their sandboxes, and Arrow judges every
result from world-state alone. Ends with the verdict and the anytime report.

Options:
  --bait [kind]      Cast an adversarial decoy on one agent (default drop_noisy); the overwatch must catch
                     it and withhold the tainted result. Kinds:
${BAIT_KINDS.map((k) => `                       ${k}: ${BAITS[k].title}`).join("\n")}
  --model <name>     Model for the planner and agents without their own (default ARROW_LLM_MODEL)
  --serve            Serve the live dashboard while the run goes
  --port <n>, --host <addr>   Dashboard address with --serve
  --tick-ms <n>      Pause between ticks (default ${REAL_TICK_MS}, ${LIVE_TICK_MS} with --serve)
  --max-ticks <n>    Fuse whatever still runs after this many ticks (default 5000)
  --runs-dir <dir>   Where run directories go (default ./runs)
  --unsandboxed      Run agents' commands without bubblewrap where it is missing
  --json             Print one JSON object at the end
  -h, --help

Environment: ARROW_LLM_API_KEY (required), ARROW_LLM_BASE_URL (default OpenRouter; any OpenAI-compatible
endpoint: OpenAI, vLLM, Ollama, llama.cpp), ARROW_LLM_MODEL.`;

export async function main(argv: string[]): Promise<number> {
  // --bait takes an optional kind: give it a value when the next word is one.
  const args = [...argv];
  const bi = args.indexOf("--bait");
  let bait: BaitKind | null = null;
  if (bi >= 0) {
    const next = args[bi + 1];
    bait = next && (BAIT_KINDS as string[]).includes(next) ? next as BaitKind : "drop_noisy";
    args.splice(bi, next === bait ? 2 : 1);
  }
  const { values, positionals } = parse("research", args, {
    model: { type: "string" },
    serve: { type: "boolean" },
    port: { type: "string" },
    host: { type: "string" },
    "tick-ms": { type: "string" },
    "max-ticks": { type: "string" },
    "runs-dir": { type: "string" },
    unsandboxed: { type: "boolean" },
    json: { type: "boolean" },
    quiet: { type: "boolean" },
  }, 1);
  const question = positionals[0]?.trim();
  if (!question) {
    throw new UsageError('arrow research: missing the question, e.g. arrow research "Does X beat Y?"');
  }
  let connected;
  try {
    connected = connectLlm("planner", values.model as string | undefined);
  } catch (e) {
    if (e instanceof LlmConfigError) throw new InputError(`arrow research: ${e.message}`);
    throw e;
  }
  const { client, model, settings } = connected;
  const json = values.json === true;
  let planned;
  try {
    planned = await planFromQuestion(question, { client, model, file: "plan.yaml" });
  } catch (e) {
    if (e instanceof PlanError) {
      throw new InputError(
        `arrow research: ${e.message}; nothing ran`,
        e.diagnostics.slice(0, 50).map((d) => printable(d)),
      );
    }
    if (e instanceof LlmError) throw new InputError(`arrow research: ${printable(e.message)}; nothing ran`);
    throw e;
  }
  if (!json) {
    console.log(`arrow research: planned ${planned.plan.nodes.length} nodes in ${planned.rounds} round(s)`);
  }
  const extra: Fault[] = [];
  if (bait) {
    const target = baitTarget(planned.plan, bait);
    if (!target) {
      throw new InputError(
        `arrow research --bait ${bait}: the plan has no agent node a ${bait} decoy aims at`,
      );
    }
    extra.push({ kind: "bait", node: target, decoy: bait } as Fault);
    if (!json) {
      console.log(
        `arrow research: decoy "${BAITS[bait].title}" cast on ${target}; expect ${BAITS[bait].expect}`,
      );
    }
  }
  const serve = values.serve === true;
  return await runResolved({
    name: "research",
    description: question,
    plan: planned.plan,
    planText: planned.text,
    faults: [],
    expect: undefined,
    real: undefined,
    warnings: planned.warnings,
    faultFile: "plan.yaml",
    faultPos: [],
    realFaultPos: [],
  }, {
    mode: "live",
    tickMs: intFlag("research", "tick-ms", values["tick-ms"], 0, serve ? LIVE_TICK_MS : REAL_TICK_MS),
    maxTicks: intFlag("research", "max-ticks", values["max-ticks"], 1, 5000),
    runsDir: (values["runs-dir"] as string | undefined) ?? "runs",
    json,
    quiet: values.quiet === true,
    serve,
    port: intFlag("research", "port", values.port, 0, 8765, 65535),
    host: values.host as string | undefined,
    unsandboxed: values.unsandboxed === true,
    extraFaults: extra,
    onRunDir: (dir) => {
      Deno.mkdirSync(`${dir}/logs/agent`, { recursive: true });
      recordPlannerCalls(`${dir}/logs/agent/planner.jsonl`, planned.calls, [settings.apiKey]);
    },
  });
}
