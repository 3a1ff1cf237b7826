/**
 * Scenarios as data: a plan (built-in name or path) plus a declarative fault script. Fault kinds are the
 * chaos a user can aim at their own plan: worker-side ones travel to the worker in its config, engine-side
 * ones (reopen, taint) are injected by the engine at a logical time.
 *
 * @module
 */
import { isSeq } from "yaml";
import { checkDocument, controlCharIn, type Pos } from "./check.ts";
import { type Diagnostic, parseYaml } from "./load.ts";
import { ID_PATTERN, profileSchema } from "./plan_schema.ts";
import { type Infer, s } from "./schema.ts";
import type { Plan } from "./types.ts";

const node = s.str({ pattern: ID_PATTERN, doc: "node the fault is aimed at" });
/** Largest tick or step a fault may name: far beyond any run, small enough to be a real number of ticks. */
export const MAX_FAULT_TICK = 1_000_000;
const attempts = s.arr(s.int({ min: 1, max: 1000 }), {
  minItems: 1,
  doc: "attempts it applies to (default: the first)",
});
const when = s.scalar('"green" (once every node is verified) or a tick number');
const tickOrGreen = (v: unknown) =>
  v === "green" || (typeof v === "number" && Number.isInteger(v) && v >= 1 && v <= MAX_FAULT_TICK);

export const faultSchema = s.tagged("kind", {
  trainer_profile: s.obj(
    { node, profile: profileSchema, attempts },
    ["node", "profile"],
    "replace a mock trainer's curve",
  ),
  manifest_override: s.obj(
    { node, set: s.record(s.scalar()), attempts },
    ["node", "set"],
    "the worker writes these fields into results.json",
  ),
  out_of_scope_write: s.obj(
    {
      node,
      path: s.str({ minLength: 1, doc: "target, relative to the run's nodes/" }),
      at_tick: s.int({
        min: 1,
        max: MAX_FAULT_TICK,
        doc: "tick (mock) or metric step (real) of the attempt",
      }),
      attempts,
    },
    ["node", "path"],
    "the worker tries to write outside its scope (a relative path is under the run's nodes/)",
  ),
  stall: s.obj(
    {
      node,
      at_step: s.int({
        min: 0,
        max: MAX_FAULT_TICK,
        doc: "step (long) or tick (fast, reactive) it stalls at",
      }),
      ticks: s.int({ min: 1, max: MAX_FAULT_TICK, doc: "mock: ticks it stays silent (absent: for good)" }),
      seconds: s.num({ min: 0.001, max: 86400, doc: "real: seconds it stays silent (absent: for good)" }),
      attempts,
    },
    ["node", "at_step"],
    "the worker stops making progress for a while, or for good (a hang); at_step 0 = before any metric",
  ),
  bait: s.obj(
    {
      node,
      decoy: s.enum(
        ["drop_noisy", "edit_eval", "false_claim"] as const,
        "what the decoy tempts the agent to do",
      ),
      attempts,
    },
    ["node", "decoy"],
    "live path: an adversarial nudge appended to an LLM agent's task (arrow research --bait)",
  ),
  crash: s.obj(
    {
      node,
      at_step: s.int({ min: 0, max: MAX_FAULT_TICK, doc: "step (long) or tick (fast, reactive) it dies at" }),
      exit: s.int({ min: 1, max: 255, doc: "exit code (default 1)" }),
      attempts,
    },
    ["node", "at_step"],
    "the worker dies with a non-zero exit code",
  ),
  reopen: s.obj({ node, when }, ["node", "when"], "an upstream node is reopened (stale cascade)"),
  taint: s.obj({ node, when }, ["node", "when"], "a frozen protocol/harness is found broken (taint)"),
  false_claim: s.obj(
    { node, claims: s.arr(s.num(), { minItems: 1, doc: "score claimed on lap 1, 2, …" }), attempts },
    ["node", "claims"],
    "results.json claims a score the artifact does not reproduce",
  ),
  frozen_scope: s.obj({ node, attempts }, ["node"], "the worker burns tokens and changes nothing"),
  flip_flop: s.obj({ node, attempts }, ["node"], "the worker rewrites its output A→B→A"),
  superseding_answer: s.obj(
    { node, at_stage: s.int({ min: 1 }), attempts },
    ["node", "at_stage"],
    "a trainer answers the question early, superseding other branches",
  ),
});

export const scenarioSchema = s.obj(
  {
    name: s.str({ pattern: "^[a-z][a-z0-9_]*$" }),
    description: s.str({ minLength: 1 }),
    plan: s.str({ minLength: 1, doc: "built-in plan name, or a path relative to this file" }),
    expect: s.obj(
      { verdict: s.enum(["RESEARCH ANSWERED", "NEGATIVE RESULT", "RESULT WITHHELD", "NO VERDICT"] as const) },
      [],
    ),
    real: s.obj({ faults: s.arr(faultSchema), skip: s.str() }, [], "differences on the --real path"),
    faults: s.arr(faultSchema),
  },
  ["name", "description", "plan"],
);

export type Fault = Infer<typeof faultSchema>;
export type ScenarioFile = Infer<typeof scenarioSchema>;
export const ENGINE_FAULTS = new Set(["reopen", "taint"]);

export interface ScenarioLoad {
  scenario?: ScenarioFile;
  errors: Diagnostic[];
  /** Position of each fault's `node` value, to report faults aimed at unknown nodes. */
  faultPos: Pos[];
  /** The same for the faults of the real path (`real.faults`). */
  realFaultPos?: Pos[];
}

export function loadScenario(text: string, file: string): ScenarioLoad {
  const parsed = parseYaml(text, file);
  const { doc, lines } = parsed;
  const diag = (p: Pos, message: string): Diagnostic => ({ file, ...p, message });
  if (!doc || parsed.errors.length) return { errors: parsed.errors, faultPos: [] };
  const checked = checkDocument(doc, scenarioSchema, lines, "scenario");
  const errors = checked.problems.map((p) => diag(p, p.message));
  const sc = checked.value as ScenarioFile;
  const faultPos = (sc?.faults ?? []).map((_, i) => checked.pos(["faults", i, "node"]));
  const realFaultPos = (sc?.real?.faults ?? []).map((_, i) => checked.pos(["real", "faults", i, "node"]));
  errors.push(...whenProblems(sc?.faults ?? [], (i) => checked.pos(["faults", i, "when"]), file));
  errors.push(...pathProblems(sc?.faults ?? [], (i) => checked.pos(["faults", i, "path"]), file));
  return errors.length ? { errors, faultPos } : { scenario: sc, errors: [], faultPos, realFaultPos };
}

/** A fault's target path may not carry control characters (it is printed and written to). */
function pathProblems(faults: readonly Fault[], at: (i: number) => Pos, file: string): Diagnostic[] {
  return faults.flatMap((f, i) => {
    const bad = "path" in f && typeof f.path === "string" ? controlCharIn(f.path) : null;
    return bad ? [{ file, ...at(i), message: `fault path has a control character (${bad})` }] : [];
  });
}

function whenProblems(faults: readonly Fault[], at: (i: number) => Pos, file: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  faults.forEach((f, i) => {
    if ((f.kind === "reopen" || f.kind === "taint") && !tickOrGreen(f.when)) {
      out.push({
        file,
        ...at(i),
        message: `fault when must be "green" or a whole tick number from 1 to ${MAX_FAULT_TICK}, got ${
          JSON.stringify(f.when)
        }`,
      });
    }
  });
  return out;
}

/** Faults aimed at nodes the plan does not have. */
export function checkFaults(plan: Plan, faults: readonly Fault[], pos: Pos[], file: string): Diagnostic[] {
  const ids = new Set(plan.nodes.map((n) => n.id));
  const out: Diagnostic[] = [];
  faults.forEach((f, i) => {
    if (!ids.has(f.node)) {
      out.push({
        file,
        ...(pos[i] ?? { line: 1, col: 1 }),
        message: `fault ${f.kind} aimed at unknown node "${f.node}"`,
      });
    }
  });
  return out;
}

/** Loads a standalone fault script (`arrow run plan.yaml --faults f.yaml`): a list, or `{faults: [...]}`. */
export function loadFaults(
  text: string,
  file: string,
): { faults?: Fault[]; errors: Diagnostic[]; faultPos: Pos[] } {
  const parsed = parseYaml(text, file);
  const { doc, lines } = parsed;
  const diag = (p: Pos, message: string): Diagnostic => ({ file, ...p, message });
  if (!doc || parsed.errors.length) return { errors: parsed.errors, faultPos: [] };
  const list = isSeq(doc.contents);
  const schema = list ? s.arr(faultSchema) : s.obj({ faults: s.arr(faultSchema) }, ["faults"]);
  const checked = checkDocument(doc, schema, lines, list ? "faults" : "fault script");
  const faults = (list ? checked.value : (checked.value as { faults?: Fault[] } | undefined)?.faults) as
    | Fault[]
    | undefined;
  const base = list ? [] : ["faults"];
  const faultPos = (faults ?? []).map((_, i) => checked.pos([...base, i, "node"]));
  const errors = checked.problems.map((p) => diag(p, p.message));
  errors.push(...whenProblems(faults ?? [], (i) => checked.pos([...base, i, "when"]), file));
  errors.push(...pathProblems(faults ?? [], (i) => checked.pos([...base, i, "path"]), file));
  return errors.length ? { errors, faultPos } : { faults: faults ?? [], errors: [], faultPos };
}
