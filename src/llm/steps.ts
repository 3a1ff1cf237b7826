/**
 * The agent's own clock: one line per agent step (number, tokens, cost, the scope's fingerprint after the
 * step) and one line when the loop ends (why, after how many steps), appended to a per-attempt file the
 * engine senses. A step is an observation however fast the agent runs, so spinning inside one tick is seen.
 *
 * @module
 */
import { appendJsonl } from "./jsonl.ts";

/** One agent step as the agent loop recorded it. */
export interface StepLine {
  step: number;
  /** Tokens the step's API call reported (usage.total_tokens; 0 for a step replayed from the transcript). */
  tokens: number;
  /** The call's cost as the API reported it; null when it reported none. */
  cost: number | null;
  /** Content fingerprint of the scope after the step's command (the engine's own fingerprint). */
  fp: string;
}

/** The loop ended: done, step limit, stopped, error. */
export interface StepEnd {
  end: "done" | "max_steps" | "stopped" | "error";
  steps: number;
}

/** `<run>/.arrow/steps/<node>/<attempt>.jsonl` (hidden from sandboxed commands, like the usage files). */
export function stepsPath(runDir: string, node: string, attempt: number): string {
  return `${runDir}/.arrow/steps/${node}/${attempt}.jsonl`;
}

/** The run directory of an agent config, whose `nodes` is `<run>/nodes`. */
export function runDirOf(nodes: string): string {
  return nodes.replace(/\/+$/, "").replace(/\/nodes$/, "");
}

export function appendStep(path: string, line: StepLine | StepEnd): void {
  appendJsonl(path, line);
}
