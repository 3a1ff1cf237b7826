/**
 * Finds what to run: a built-in scenario by name (embedded in the program), or a plan file of the user's
 * with an optional fault script. Every problem becomes an InputError listing file:line:col lines.
 *
 * @module
 */
import type { Pos } from "../graph/check.ts";
import { formatDiagnostic, loadPlan } from "../graph/load.ts";
import { expandSweeps } from "../graph/sweep_expand.ts";
import { checkFaults, type Fault, loadFaults, loadScenario, type ScenarioFile } from "../graph/scenario.ts";
import type { Plan } from "../graph/types.ts";
import { PLANS, SCENARIOS } from "../scenarios.gen.ts";
import { InputError, readInput } from "./errors.ts";

export interface Resolved {
  name: string;
  description: string;
  plan: Plan;
  planText: string;
  faults: Fault[];
  expect: ScenarioFile["expect"] | undefined;
  real: ScenarioFile["real"] | undefined;
  warnings: string[];
  /** Where the faults (and the real path's faults) were written, for file:line:col messages. */
  faultFile: string;
  faultPos: Pos[];
  realFaultPos: Pos[];
}

export function builtinNames(): string[] {
  return Object.keys(SCENARIOS).sort();
}

function fail(what: string, lines: string[]): never {
  throw new InputError(`arrow: ${what}`, lines);
}

function planFrom(text: string, file: string): { plan: Plan; warnings: string[] } {
  const r = loadPlan(text, file);
  if (!r.plan) {
    fail(
      `${file} is not a valid plan (${r.errors.length} problem${r.errors.length === 1 ? "" : "s"}):`,
      r.errors.map(formatDiagnostic),
    );
  }
  return { plan: r.plan, warnings: r.warnings.map(formatDiagnostic) };
}

export function resolveBuiltin(name: string): Resolved {
  const text = SCENARIOS[name];
  if (text === undefined) {
    fail(`unknown scenario "${name}"`, [`built-in scenarios: ${builtinNames().join(", ")}`]);
  }
  const file = `scenarios/${name}.yaml`;
  const sc = loadScenario(text, file);
  if (!sc.scenario) fail(`${file} is broken:`, sc.errors.map(formatDiagnostic));
  const planText = PLANS[sc.scenario.plan];
  if (planText === undefined) fail(`${file}: unknown built-in plan "${sc.scenario.plan}"`, []);
  const { plan, warnings } = planFrom(planText, `scenarios/plans/${sc.scenario.plan}.yaml`);
  const faults = sc.scenario.faults ?? [];
  const bad = checkFaults(expandSweeps(plan), faults, sc.faultPos, file);
  if (bad.length) fail(`${file} aims faults at unknown nodes:`, bad.map(formatDiagnostic));
  return {
    name,
    description: sc.scenario.description,
    plan,
    planText,
    faults,
    expect: sc.scenario.expect,
    real: sc.scenario.real,
    warnings,
    faultFile: file,
    faultPos: sc.faultPos,
    realFaultPos: sc.realFaultPos ?? [],
  };
}

export function resolvePlanFile(path: string, faultsPath?: string): Resolved {
  const planText = readInput(path, "plan");
  const loaded = planFrom(planText, path);
  const { warnings } = loaded;
  const slash = path.lastIndexOf("/");
  const plan = { ...loaded.plan, dir: Deno.realPathSync(slash < 0 ? "." : path.slice(0, slash) || "/") };
  let faults: Fault[] = [];
  let faultPos: Pos[] = [];
  if (faultsPath) {
    const r = loadFaults(readInput(faultsPath, "fault script"), faultsPath);
    if (!r.faults) fail(`${faultsPath} is not a valid fault script:`, r.errors.map(formatDiagnostic));
    const bad = checkFaults(expandSweeps(plan), r.faults, r.faultPos, faultsPath);
    if (bad.length) fail(`${faultsPath} aims faults at unknown nodes:`, bad.map(formatDiagnostic));
    faults = r.faults;
    faultPos = r.faultPos;
  }
  const name = path.split("/").pop()!.replace(/\.ya?ml$/, "").replace(/[^A-Za-z0-9_-]/g, "_");
  return {
    name,
    description: plan.question,
    plan,
    planText,
    faults,
    expect: undefined,
    real: undefined,
    warnings,
    faultFile: faultsPath ?? path,
    faultPos,
    realFaultPos: faultPos,
  };
}

/** The seed plan with no faults (what `arrow run --data FILE --target COL` runs on the user's data). */
export function resolveSeedPlan(): Resolved {
  const planText = PLANS.seed!;
  const { plan, warnings } = planFrom(planText, "scenarios/plans/seed.yaml");
  return {
    name: "seed",
    description: plan.question,
    plan,
    planText,
    faults: [],
    expect: undefined,
    real: undefined,
    warnings,
    faultFile: "scenarios/plans/seed.yaml",
    faultPos: [],
    realFaultPos: [],
  };
}
