/**
 * Reads the steps an agent loop recorded (llm/steps.ts) as they are appended, typed field by field: a line
 * that is not a well-formed step or end is skipped and counted, never trusted.
 *
 * @module
 */
import type { AgentStepObs } from "../../model/observe.ts";
import { JsonlTail } from "./tail.ts";

const ENDS = new Set(["done", "max_steps", "stopped", "error"]);
/** Longer than any fingerprint this program writes: a longer one is not ours. */
const MAX_FP = 128;

const whole = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
const finite = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v) && v >= 0;

export class StepsTail {
  readonly #tail: JsonlTail;
  /** Lines skipped as malformed. */
  skipped = 0;
  /** The loop's end once recorded: kept, because the worker's exit may be sensed a tick after the line. */
  #end: { end: string; steps: number } | undefined;

  constructor(path: string) {
    this.#tail = new JsonlTail(path);
  }

  /** Steps appended since the last read, and the loop's end if it has been recorded (now or before). */
  read(): { steps: AgentStepObs[]; end?: { end: string; steps: number } } {
    const steps: AgentStepObs[] = [];
    for (const r of this.#tail.read()) {
      if (typeof r.end === "string" && ENDS.has(r.end) && whole(r.steps)) {
        this.#end ??= { end: r.end, steps: r.steps };
      } else if (
        whole(r.step) && r.step > 0 && finite(r.tokens) && (r.cost === null || finite(r.cost)) &&
        typeof r.fp === "string" && r.fp.length <= MAX_FP
      ) {
        steps.push({ step: r.step, tokens: Math.round(r.tokens), cost: r.cost as number | null, fp: r.fp });
      } else this.skipped++;
    }
    this.skipped += this.#tail.malformed;
    this.#tail.malformed = 0;
    return this.#end ? { steps, end: this.#end } : { steps };
  }
}
