/**
 * Runs plans on the real path in-process: the real built-in workers, real subprocesses, wall-clock ticks at
 * the CLI's --real pace. Also builds the seed plan with its trainer swapped for the Python example trainer.
 *
 * @module
 */
import { parse, stringify } from "yaml";
import { BUILTINS } from "../../src/workers/real/registry.ts";
import { resolveBuiltin } from "../../src/cli/catalog.ts";
import { REAL_TICK_MS } from "../../src/cli/run.ts";
import { prepare } from "../../src/engine/prepare.ts";
import { startRun } from "../../src/engine/run.ts";
import { loadPlan } from "../../src/graph/load.ts";
import type { Fault } from "../../src/graph/scenario.ts";
import type { Plan } from "../../src/graph/types.ts";
import type { Incident, RunState } from "../../src/model/state.ts";
import type { Unshare } from "../../src/runtime/sandbox/namespace.ts";
import { PLANS } from "../../src/scenarios.gen.ts";
import { ROOT } from "./cli.ts";

export type Triple = [type: string, node: string, ladder: string];

export interface RealRun {
  dir: string;
  state: RunState;
  incidents: Incident[];
  triples: Triple[];
}

export const triple = (
  i: { type: string; node: string; ladder: string },
): Triple => [i.type, i.node, i.ladder];

function readIncidents(path: string): Incident[] {
  return Deno.readTextFileSync(path).split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

/** The mock path's black box for a built-in scenario (the golden file the mock tests pin). */
export function mockTriples(name: string): Triple[] {
  return readIncidents(`${ROOT}tests/golden/${name}/incidents.jsonl`).map(triple);
}

/** A built-in scenario's plan and the faults it uses on the real path. */
export function realScenario(name: string): { plan: Plan; faults: Fault[] } {
  const res = resolveBuiltin(name);
  return { plan: res.plan, faults: res.real?.faults ?? res.faults };
}

/** Runs a plan on the real path into a fresh temporary directory (the caller removes it). */
export async function runReal(
  name: string,
  plan: Plan,
  faults: Fault[],
  opts: { bwrap?: string | null; watch?: Unshare | null; tickMs?: number; maxTicks?: number; dir?: string } =
    {},
): Promise<RealRun> {
  const dir = opts.dir ?? await Deno.makeTempDir({ prefix: `arrow-real-${name}-` });
  const state = await startRun(prepare(plan, faults, name, "real"), {
    runDir: dir,
    tickMs: opts.tickMs ?? REAL_TICK_MS,
    maxTicks: opts.maxTicks ?? 400,
    builtins: BUILTINS,
    bwrap: opts.bwrap ?? null,
    // No bubblewrap handed over means the caller chose to run unconfined, as --unsandboxed says.
    unsandboxed: !opts.bwrap,
    watch: opts.watch ?? null,
  });
  const incidents = readIncidents(`${dir}/incidents.jsonl`);
  return { dir, state, incidents, triples: incidents.map(triple) };
}

/** The Python interpreter the example trainer runs under (Debian's, when present: no user site set-up). */
export const PYTHON = (() => {
  try {
    Deno.statSync("/usr/bin/python3");
    return "/usr/bin/python3";
  } catch {
    return "python3";
  }
})();

/**
 * The seed plan with N4 trained by scripts/python/train_gbdt.py as a command worker, reading the data node's
 * files through N2 (a node reads every artifact ancestor), its claim recomputed by the trainer's --evaluate.
 */
export function pythonPlan(extra: string[] = []): Plan {
  const doc = parse(PLANS.seed!) as {
    protocol: Record<string, unknown>;
    nodes: { id: string; worker?: unknown }[];
    edges: { from: string; to: string; kind: string }[];
  };
  const n4 = doc.nodes.find((n) => n.id === "N4")!;
  n4.worker = {
    type: "command",
    argv: [
      PYTHON,
      `${ROOT}scripts/python/train_gbdt.py`,
      ...["--data", "{nodes}/N1/data.csv", "--split", "{nodes}/N1/split.json"],
      ...["--inputs", "{nodes}/N2/results.json", "--stages", "60", "--depth", "3", "--learning-rate", "0.1"],
      ...["--ckpt-every", "6", "--stage-ms", "25", ...extra],
    ],
    env: { PYTHONDONTWRITEBYTECODE: "1" },
  };
  // Its claim is recomputed by the trainer's own evaluation mode, on the frozen data set.
  doc.protocol.evaluate = [
    PYTHON,
    `${ROOT}scripts/python/train_gbdt.py`,
    "--evaluate",
    "{artifact}",
    "--data-dir",
    "{data}",
  ];
  const r = loadPlan(stringify(doc), "python_seed.yaml");
  if (!r.plan) throw new Error(JSON.stringify(r.errors));
  return r.plan;
}
