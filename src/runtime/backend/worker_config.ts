/**
 * What a worker is told: its configuration (scope, inputs, faults of this attempt, resume point) and the
 * worker protocol's environment (WORKERS.md). Pure: built from the run state alone, no file touched.
 *
 * @module
 */
import type { NodeId, PlanNode } from "../../graph/types.ts";
import { canonical } from "../../model/json.ts";
import type { RunState } from "../../model/state.ts";
import { ancestors, parents } from "../../model/topology.ts";
import type { InputRef, WorkerConfig } from "../../workers/lib/config.ts";
import type { Unshare } from "../sandbox/namespace.ts";
export interface LaunchContext {
  runDir: string;
  state: RunState;
  node: PlanNode;
  attempt: number;
  resume: string | null;
  catchup: number;
  bwrap: string | null;
  /** The user allowed programs to run without any sandbox layer (no bubblewrap here). */
  unsandboxed?: boolean;
  /** Unconfined, how to watch a program in a mount namespace of its own (null: it cannot be made here). */
  watch?: Unshare | null;
  /** The directory holding other runs (hidden from sandboxed programs), when known. */
  runsDir?: string | null;
}

export function scopeDir(runDir: string, node: PlanNode): string {
  return `${runDir}/nodes/${node.scope}`;
}

function refs(ctx: LaunchContext, ids: readonly NodeId[]): Record<string, InputRef> {
  const { state, runDir } = ctx;
  return Object.fromEntries(ids.map((id) => {
    const n = state.plan.nodes.find((x) => x.id === id)!;
    return [id, { scope: scopeDir(runDir, n), role: n.role }];
  }));
}

/** Kinds of worker-side faults a worker honours (engine-side ones never travel). */
const ENGINE_SIDE = new Set(["reopen", "taint"]);

/** This attempt's worker-side faults, each with its index in the run's fault list (to report it fired). */
export function attemptFaults(state: RunState, node: NodeId): WorkerConfig["faults"] {
  return state.faults.flatMap((f, index) =>
    f.node === node && !ENGINE_SIDE.has(f.kind) ? [{ ...f.spec, kind: f.kind, node: f.node, index }] : []
  ) as WorkerConfig["faults"];
}

export function workerConfig(
  ctx: LaunchContext,
  args: Record<string, string | number | boolean> = {},
): WorkerConfig {
  const { state, node, runDir } = ctx;
  const ns = state.nodes[node.id]!;
  const { by: _, ...frozen } = state.frozen ?? { by: "" };
  return {
    node: node.id,
    role: node.role,
    kind: node.kind,
    scope: scopeDir(runDir, node),
    nodes: `${runDir}/nodes`,
    inputs: refs(ctx, parents(state, node.id, "artifact")),
    ancestors: refs(ctx, ancestors(state, node.id)),
    sources: refs(ctx, parents(state, node.id, "stream")),
    protocol: state.plan.protocol,
    mock: node.mock as WorkerConfig["mock"],
    args,
    faults: attemptFaults(state, node.id),
    attempt: ctx.attempt,
    lap: ns.lap + 1,
    resume: ctx.resume ? `${scopeDir(runDir, node)}/${ctx.resume}` : null,
    catchup: ctx.catchup,
    delivered: ctx.catchup > 0 ? ns.delivered : [],
    frozen: state.frozen ? frozen as WorkerConfig["frozen"] : null,
    faultLog: faultLogOf(runDir, node.id, ctx.attempt),
  };
}

export function faultLogOf(runDir: string, node: NodeId, attempt: number): string {
  return `${runDir}/.arrow/faults/${node}.${attempt}.jsonl`;
}

/** The worker protocol's environment (WORKERS.md): who and where the worker is, and what it may read. */
export function protocolEnv(ctx: LaunchContext, cfg: WorkerConfig, scratch: string): Record<string, string> {
  const scopes = (r: Record<string, InputRef>) =>
    JSON.stringify(Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v.scope])));
  const faults = cfg.faults.filter((f) => {
    const list = f.attempts as number[] | undefined;
    return list ? list.includes(ctx.attempt) : ctx.attempt === 1;
  });
  return {
    ARROW_RUN_DIR: ctx.runDir,
    ARROW_SCOPE: cfg.scope,
    ARROW_NODE: cfg.node,
    ARROW_ATTEMPT: String(ctx.attempt),
    ARROW_LAP: String(cfg.lap),
    ARROW_METRIC: cfg.protocol.metric,
    ARROW_DIRECTION: cfg.protocol.direction,
    ARROW_PROTOCOL_VERSION: cfg.protocol.version,
    ARROW_INPUTS: scopes(cfg.ancestors),
    ARROW_SOURCES: scopes(cfg.sources),
    ARROW_NODES: cfg.nodes,
    ARROW_FAULT_LOG: cfg.faultLog,
    ...(cfg.frozen ? { ARROW_FROZEN: canonical(cfg.frozen) } : {}),
    ...(faults.length ? { ARROW_FAULTS: canonical(faults) } : {}),
    ...(cfg.resume ? { ARROW_RESUME_FROM: cfg.resume } : {}),
    ARROW_TOKEN: `${ctx.runDir}#${cfg.node}#${ctx.attempt}`,
    TMPDIR: `${scratch}/tmp`,
    XDG_CACHE_HOME: `${scratch}/cache`,
    XDG_CONFIG_HOME: `${scratch}/config`,
    XDG_DATA_HOME: `${scratch}/data`,
    XDG_STATE_HOME: `${scratch}/state`,
    MPLCONFIGDIR: `${scratch}/config/matplotlib`,
    PYTHONDONTWRITEBYTECODE: "1",
    PYTHONUNBUFFERED: "1",
  };
}
