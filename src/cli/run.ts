/**
 * `arrow run`: run a built-in scenario or a plan file under overwatch, show progress, print the verdict.
 *
 * @module
 */
import { SLURM_POLL_MS, startRun } from "../engine/run.ts";
import { connectCluster } from "./cluster.ts";
import { prepare } from "../engine/prepare.ts";
import type { Mode, RunState } from "../model/state.ts";
import { acquireLock, LockedError } from "../runtime/lock.ts";
import { writeAtomic } from "../runtime/atomic.ts";
import { canonicalPretty } from "../model/json.ts";
import { intFlag, parse } from "./args.ts";
import { resolveBuiltin, type Resolved, resolvePlanFile, resolveSeedPlan } from "./catalog.ts";
import type { Fault } from "../graph/scenario.ts";
import type { Plan, Runtime } from "../graph/types.ts";
import type { BuiltinWorker } from "../runtime/backend/mod.ts";
import type { SlurmClient } from "../runtime/slurm/mod.ts";
import { printable } from "./escape.ts";
import { InputError, UsageError } from "./errors.ts";
import { onInterrupt } from "./interrupt.ts";
import { Progress } from "./progress.ts";
import { printOutcome, recordEnd } from "./run_outcome.ts";
import { sandboxSetup } from "./sandbox.ts";
import type { Live, LiveOptions } from "./live.ts";

/** Names of the built-in real workers (kept in step with src/workers/real/registry.ts by a test). */
export const BUILTIN_WORKERS = ["make_data", "ols_baseline", "gbdt_train", "ckpt_eval"] as const;

/** Default pause between ticks while a dashboard is watching, so a person can follow the run. */
export const LIVE_TICK_MS = 300;
/** Default pause on the real path: a few training stages per tick, so a hang is three ticks without a stage. */
export const REAL_TICK_MS = 100;

export const help = `Usage: arrow run (--scenario <name> | <plan.yaml>) [options]

Runs a research task graph under overwatch: workers run the nodes, Arrow checks the world itself (scope
fingerprints, metric trajectories, acceptance exit codes, comparability tuples), intervenes on hangs,
plateaus, false completion, broken comparability and out-of-lane writes, and logs every action to the
run's black box. Ends with one verdict: RESEARCH ANSWERED, NEGATIVE RESULT, RESULT WITHHELD or NO VERDICT.

Options:
  --scenario <name>  Run a built-in scenario (see arrow scenarios)
  --faults <file>    Fault script to apply to your own plan (same fault kinds as the scenarios)
  --real             Real path: real data, real OLS baseline, real GBDT trainer subprocess, and your own
                     programs (worker: {type: command}) under bubblewrap
  --unsandboxed      Let command workers run without bubblewrap where it is missing (they can then touch
                     anything you can). Each then runs alone, so every other scope is at rest and the
                     fingerprint guard sees a foreign write there; this costs the run its parallelism
  --tick-ms <n>      Wall-clock pause between ticks (default 0, or ${REAL_TICK_MS} with --real, where it must
                     stay well above a training stage's time; mock results do not depend on it)
  --max-ticks <n>    Fuse whatever still runs after this many ticks (default 5000)
  --runtime <r>      Where long nodes run: local (default, or the plan's resources.runtime) or slurm — long
                     nodes with a free-running worker become Slurm batch jobs on the cluster $SLURM_CONF
                     names; the run directory must be on a filesystem the compute nodes share (WORKERS.md)
  --runs-dir <dir>   Where run directories go (default ./runs)
  --live             Live path: nodes with worker: {type: agent} are LLM agents (ARROW_LLM_BASE_URL,
                     ARROW_LLM_API_KEY); their commands run in the node's sandbox
  --node <id>        With --live: drive only this node's agent; other agent nodes play their mock part
  --json             Print one JSON object at the end instead of progress
  --quiet            Print only the verdict and the run directory
  --serve            Serve the live dashboard while the run goes (default pace --tick-ms ${LIVE_TICK_MS});
                     after the verdict it keeps serving until Ctrl-C
  --port <n>         Dashboard port with --serve (default 8765; 0 picks a free one)
  --host <addr>      Bind address with --serve (default 127.0.0.1; anything else is reachable by others and
                     needs the access token printed in the link, or --token / --allow-host)
  --token <t>        With --serve: the dashboard's access token beyond loopback (default: generated)
  --no-token         With --serve beyond loopback: no token, only with --allow-host
  --allow-host <h>   With --serve: host names the dashboard answers to (repeatable)
  --data <file.csv>  Your own data set instead of the generated one (the real path; needs --target; without
                     a plan or --scenario it runs the seed plan on it)
  --target <column>  The column to predict in --data
  --delimiter <c>    What separates --data's columns: , ; \\t (or tab) | (default ,); with any but a comma,
                     a decimal comma (0,5) is a number

Built-in real workers (plan: worker: {type: builtin, name: …}):
  ${BUILTIN_WORKERS.join(", ")}.
Any other program runs as worker: {type: command, argv: [...]} under bubblewrap (WORKERS.md says how to
write one). Faults a node's worker cannot act out are refused before the run; faults that never fired are
listed at the end.
  -h, --help

The run directory holds plan.yaml, state.json, replay.jsonl, incidents.jsonl, report/report.md,
nodes/<id>/ (scopes) and logs/. Exit 0 whenever the run completes, whatever the verdict.`;

/** With --node N, only N keeps its LLM agent; other agent nodes play their mock part. */
function liveOnly(plan: Plan, node: string | undefined): Plan {
  if (node === undefined) return plan;
  const n = plan.nodes.find((x) => x.id === node);
  if (!n) {
    throw new InputError(`arrow run: --node ${printable(node)}: no such node`, [
      `nodes: ${plan.nodes.map((x) => x.id).join(", ")}`,
    ]);
  }
  if (n.worker?.type !== "agent") {
    throw new InputError(`arrow run: --node ${node}: it has no agent worker to drive`);
  }
  return {
    ...plan,
    nodes: plan.nodes.map((x) => {
      if (x.id === node || x.worker?.type !== "agent") return x;
      const { worker: _, ...rest } = x;
      return rest;
    }),
  };
}

/** The live path needs an endpoint and a key before anything starts. */
async function checkLlm(): Promise<void> {
  const { llmSettings } = await import("../llm/env.ts");
  const { LlmConfigError } = await import("../llm/errors.ts");
  try {
    llmSettings();
  } catch (e) {
    if (e instanceof LlmConfigError) throw new InputError(`arrow run --live: ${e.message}`);
    throw e;
  }
}

export function runId(name: string): string {
  const t = new Date().toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  const rand = crypto.getRandomValues(new Uint8Array(2));
  return `${t}-${name}-${[...rand].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse("run", argv, {
    scenario: { type: "string" },
    faults: { type: "string" },
    real: { type: "boolean" },
    "tick-ms": { type: "string" },
    "max-ticks": { type: "string" },
    "runs-dir": { type: "string" },
    json: { type: "boolean" },
    quiet: { type: "boolean" },
    serve: { type: "boolean" },
    port: { type: "string" },
    host: { type: "string" },
    data: { type: "string" },
    target: { type: "string" },
    delimiter: { type: "string" },
    unsandboxed: { type: "boolean" },
    runtime: { type: "string" },
    live: { type: "boolean" },
    node: { type: "string" },
    token: { type: "string" },
    "no-token": { type: "boolean" },
    "allow-host": { type: "string", multiple: true },
  }, 1);
  const scenario = values.scenario as string | undefined;
  const planPath = positionals[0];
  if (scenario && planPath) throw new UsageError("arrow run: give --scenario or a plan file, not both");
  if (!scenario && !planPath && !values.data) {
    throw new UsageError("arrow run: missing --scenario <name> or <plan.yaml> (see arrow run --help)");
  }
  if (scenario && values.faults) {
    throw new UsageError("arrow run: --faults applies to your own plan, not to --scenario");
  }
  const serve = values.serve === true;
  if (!serve && (values.port || values.host || values.token || values["no-token"] || values["allow-host"])) {
    throw new UsageError("arrow run: --port, --host, --token, --no-token and --allow-host need --serve");
  }
  if (values.data && !values.target) throw new UsageError("arrow run: --data needs --target <column>");
  for (const f of ["target", "delimiter"]) {
    if (values[f] && !values.data) throw new UsageError(`arrow run: --${f} needs --data <file.csv>`);
  }
  if (values.node && !values.live) throw new UsageError("arrow run: --node needs --live");
  const runtime = values.runtime as string | undefined;
  if (runtime !== undefined && runtime !== "local" && runtime !== "slurm") {
    throw new UsageError(`arrow run: --runtime must be local or slurm, not ${JSON.stringify(runtime)}`);
  }
  // Your own data is real data: --data runs the real path; --live is the real path with LLM agents.
  const mode: Mode = values.live ? "live" : values.real || values.data ? "real" : "mock";
  const tickMs = intFlag(
    "run",
    "tick-ms",
    values["tick-ms"],
    0,
    serve ? LIVE_TICK_MS : mode !== "mock" ? REAL_TICK_MS : 0,
  );
  const res = scenario
    ? resolveBuiltin(scenario)
    : planPath
    ? resolvePlanFile(planPath, values.faults as string | undefined)
    : resolveSeedPlan();
  return await runResolved(res, {
    mode,
    tickMs,
    maxTicks: intFlag("run", "max-ticks", values["max-ticks"], 1, 5000),
    runsDir: (values["runs-dir"] as string | undefined) ?? "runs",
    json: values.json === true,
    quiet: values.quiet === true,
    serve,
    port: intFlag("run", "port", values.port, 0, 8765, 65535),
    host: values.host as string | undefined,
    data: values.data as string | undefined,
    target: values.target as string | undefined,
    delimiter: (await import("./data_checks.ts")).delimiterFlag("run", values.delimiter),
    unsandboxed: values.unsandboxed === true,
    ...(runtime ? { runtime: runtime as Runtime } : {}),
    liveNode: values.node as string | undefined,
    access: serve ? (await import("./serve.ts")).accessFlags("run", values) : {},
  });
}

export interface RunOptions {
  mode: Mode;
  tickMs: number;
  maxTicks: number;
  runsDir: string;
  json: boolean;
  quiet: boolean;
  serve: boolean;
  port: number;
  host?: string;
  data?: string;
  target?: string;
  delimiter?: string;
  unsandboxed: boolean;
  /** --runtime: where long nodes run, overriding the plan's resources.runtime. */
  runtime?: Runtime;
  /** --live --node N: only N runs its LLM agent; other agent nodes play their mock part. */
  liveNode?: string;
  /** Faults added by the caller (arrow research --bait). */
  extraFaults?: Fault[];
  /** Dashboard access beyond loopback (--token, --no-token, --allow-host). */
  access?: LiveOptions["access"];
  /** Called once the run directory exists, before anything runs (e.g. to record the planner's calls). */
  onRunDir?: (runDir: string) => void;
}

/** Runs a resolved plan to its verdict: the run directory, the engine, progress, the dashboard. */
export async function runResolved(res: Resolved, o: RunOptions): Promise<number> {
  const { mode, tickMs, maxTicks, serve, port } = o;
  const json = o.json;
  const quiet = json || o.quiet;
  for (const w of res.warnings) if (!json) console.error(`warning: ${printable(w)}`);
  if (mode === "live") {
    res = { ...res, plan: liveOnly(res.plan, o.liveNode) };
    await checkLlm();
  }
  if (o.extraFaults?.length) res = { ...res, faults: [...res.faults, ...o.extraFaults], real: undefined };
  if (o.runtime) res = { ...res, plan: { ...res.plan, runtime: o.runtime } };
  const sandbox = await sandboxSetup(mode, res, quiet, o.unsandboxed);
  // Before the run directory exists: a cluster that does not answer, or refuses a node's options, is an
  // input error that leaves nothing behind.
  const slurm = await connectSlurm(res.plan, mode, sandbox.builtins, quiet);
  const runsDir = Deno.realPathSync(mkdirp(o.runsDir));
  const runDir = `${runsDir}/${runId(res.name)}`;
  let plan = res.plan;
  if (o.data) {
    const data = await import("./data.ts");
    plan = await data.withUserData(plan, o.data, o.target!, runDir, o.delimiter);
  }
  Deno.mkdirSync(runDir, { recursive: true });
  o.onRunDir?.(runDir);
  const state = prepare(plan, sandbox.faults, res.name, mode);
  const lock = acquireLock(runDir);
  const dataNote = o.data
    ? `\n# arrow run --data ${o.data} --target ${o.target}: the data node reads the copy in data/\n`
    : "";
  Deno.writeTextFileSync(`${runDir}/plan.yaml`, res.planText + dataNote);
  const meta = {
    run_id: runDir.split("/").pop(),
    scenario: res.name,
    mode,
    tick_ms: tickMs,
    unsandboxed: sandbox.unsandboxed,
    ...(plan.runtime !== "local" ? { runtime: plan.runtime } : {}),
    ...(slurm?.conf ? { slurm_conf: slurm.conf } : {}),
    ...(o.data ? { data: o.data, target: o.target } : {}),
    started_at: new Date().toISOString(),
    pid: Deno.pid,
  };
  writeAtomic(`${runDir}/run.json`, canonicalPretty(meta));

  const progress = new Progress(quiet);
  using interrupt = onInterrupt();
  const t0 = performance.now();
  let final: RunState;
  let live: Live | null = null;
  try {
    if (serve) {
      try {
        live = await (await import("./live.ts")).startLive({
          runsDir,
          runDir,
          port,
          host: o.host,
          quiet: json,
          ...(o.access ? { access: o.access } : {}),
        });
      } catch (e) {
        // Nothing ran: leave no half-made run directory behind.
        await Deno.remove(runDir, { recursive: true }).catch(() => {});
        await slurm?.close();
        throw e;
      }
    }
    if (!quiet) console.log(`arrow run ${res.name} (${mode}) → ${runDir}`);
    final = await startRun(state, {
      runDir,
      tickMs,
      maxTicks,
      builtins: sandbox.builtins,
      bwrap: sandbox.bwrap,
      unsandboxed: sandbox.unsandboxed,
      watch: sandbox.watch,
      unwatched: sandbox.unwatched,
      runsDir,
      slurm,
      signal: interrupt.signal,
      onTick: (s, ev) => {
        progress.tick(s, ev);
        live?.onTick(s, ev);
      },
    });
  } finally {
    progress.end();
    lock.release();
  }
  if (
    !recordEnd("run", runDir, meta, {
      finished_at: new Date().toISOString(),
      wall_ms: Math.round(performance.now() - t0),
    }, final)
  ) {
    await live?.close();
    return 130;
  }
  const code = printOutcome(final, runDir, json, quiet);
  if (live) await live.hold();
  return code;
}

/**
 * A connected Slurm client when the plan's runtime is slurm and some node runs as a job (long nodes with a
 * free-running worker; never on the mock path, whose workers are lock-step), each node's job options
 * checked against the cluster; null otherwise.
 */
async function connectSlurm(
  plan: Plan,
  mode: Mode,
  builtins: Record<string, BuiltinWorker>,
  quiet: boolean,
): Promise<SlurmClient | null> {
  if (plan.runtime !== "slurm") return null;
  const { slurmNodes } = await import("../runtime/backend/mod.ts");
  const ids = new Set(slurmNodes(plan, mode, builtins));
  if (!ids.size) {
    if (!quiet) {
      console.error(
        "warning: runtime slurm: no node runs as a Slurm job here (only long nodes with a free-running " +
          "worker do, on the real and live paths); everything runs locally",
      );
    }
    return null;
  }
  return await connectCluster("arrow run", plan.nodes.filter((n) => ids.has(n.id)), SLURM_POLL_MS);
}

function mkdirp(dir: string): string {
  try {
    Deno.mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw new InputError(`arrow run: cannot create runs directory ${dir}: ${(e as Error).message}`);
  }
  return dir;
}

export { LockedError };
