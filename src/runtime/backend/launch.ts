/**
 * How a node's worker is started: which program, which sandbox layer, which environment. Deno children get
 * Deno permissions (write only to their scope, read only their inputs, audited); any other program runs
 * under bubblewrap, and without it only when the user said --unsandboxed — then watched, where a mount
 * namespace can be made, by shadows of /tmp, $HOME and other runs (box.ts). Placeholders {scope} {run}
 * {node} {nodes} expand in argv. The environment is the worker protocol (WORKERS.md).
 *
 * @module
 */
import type { PlanNode } from "../../graph/types.ts";
import { canonical } from "../../model/json.ts";
import type { BuiltinWorker, WorkerConfig } from "../../workers/lib/config.ts";
export type { BuiltinWorker };
import { type BaitKind, BAITS } from "../../llm/bait.ts";
import type { Refusal, Shadow } from "../sandbox/bwrap.ts";
import { besidePlan, expand } from "./argv.ts";
import { denoDir, makeScratch, sandboxed, scratchDir } from "./box.ts";
import { type LaunchContext, protocolEnv, scopeDir, workerConfig } from "./worker_config.ts";

export { besidePlan, expand } from "./argv.ts";
export {
  boxArgv,
  type Boxed,
  type Boxes,
  denoDir,
  makeScratch,
  neededPaths,
  sandboxed,
  scratchDir,
  watchedDirs,
} from "./box.ts";
export type { Refusal, Shadow };
export {
  attemptFaults,
  faultLogOf,
  type LaunchContext,
  protocolEnv,
  scopeDir,
  workerConfig,
} from "./worker_config.ts";
/** The worker programs Arrow starts as Deno children (src/workers/). */
export const WORKERS_DIR = new URL("../../workers/", import.meta.url).pathname;

/** True when running as a `deno compile`d binary (workers then start as `arrow __worker <name>`). */
export function isCompiled(): boolean {
  return !/(^|\/)deno(\.exe)?$/.test(Deno.execPath());
}

export interface Command {
  cmd: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** Protocol: lock-step line handshake, or a plain process observed through its files. */
  lockstep: boolean;
  /** Deno permission audit log to read for escapes, when the child is a Deno program. */
  audit: string | null;
  /** "none": unconfined (--unsandboxed), watched or not by a mount namespace's shadows. */
  sandbox: "deno" | "bwrap" | "none";
  /** Shadow directories where stray writes land (bubblewrap's, or a watch-only namespace's). */
  shadows: Shadow[];
  /** Lanes bubblewrap binds read-only (too large to copy): a write there is refused, not caught. */
  refusing: Refusal[];
  /** Config sent as the first stdin line (lock-step workers only). */
  config: WorkerConfig | null;
}

/** Environment a child may see: a few host variables. */
export function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (
    const k of [
      "HOME",
      "PATH",
      "LANG",
      "LC_ALL",
      "TZ",
      "USER",
      "LOGNAME",
      "VIRTUAL_ENV",
      "CONDA_PREFIX",
      "PYENV_ROOT",
    ]
  ) {
    const v = Deno.env.get(k);
    if (v !== undefined) env[k] = v;
  }
  const dd = denoDir();
  if (dd) env.DENO_DIR = dd;
  return env;
}

/** Environment variables our Deno workers may read (their config, where they are, where to resume). */
const DENO_WORKER_ENV = ["ARROW_CONFIG", "ARROW_RUN_DIR", "ARROW_SCOPE", "ARROW_NODE", "ARROW_RESUME_FROM"];

/** Deno flags that keep a child offline and unable to touch the lockfile or fetch packages. */
const LOCKED = ["--no-prompt", "--no-config", "--no-lock", "--no-remote", "--no-npm", "--quiet"];

const MAIN = new URL("../../cli/main.ts", import.meta.url).pathname;

/**
 * True when our Deno children run as `arrow __worker <name>` instead of `deno run <script>`: always in a
 * compiled binary (no script files on disk), or when ARROW_WORKER_MODE=self asks for it (to test that path
 * from source). Self-executed workers carry the binary's own permissions, so Deno's permission layer is
 * replaced by bubblewrap where it is available.
 */
export function selfExec(): boolean {
  return isCompiled() || Deno.env.get("ARROW_WORKER_MODE") === "self";
}

/** A Deno script of ours, run sandboxed by Deno permissions (or self-executed, see selfExec). */
export function denoScript(
  script: string,
  args: string[],
  perms: { read: string[]; write: string[]; env: string[] },
  audit: string | null,
): { cmd: string; args: string[]; env: Record<string, string> } {
  const env: Record<string, string> = audit ? { DENO_AUDIT_PERMISSIONS: audit } : {};
  if (isCompiled()) return { cmd: Deno.execPath(), args: ["__worker", script, ...args], env: {} };
  if (selfExec()) {
    const config = new URL("../../../deno.json", import.meta.url).pathname;
    return {
      cmd: Deno.execPath(),
      args: ["run", "-A", "--no-prompt", "--quiet", "--config", config, MAIN, "__worker", script, ...args],
      env: {},
    };
  }
  const flags = [...LOCKED];
  if (perms.read.length) flags.push(`--allow-read=${perms.read.join(",")}`);
  if (perms.write.length) flags.push(`--allow-write=${perms.write.join(",")}`);
  if (perms.env.length) flags.push(`--allow-env=${perms.env.join(",")}`);
  return { cmd: Deno.execPath(), args: ["run", ...flags, `${WORKERS_DIR}${script}.ts`, ...args], env };
}

/** The part of a worker's command that does not depend on the attempt: what a standby process is. */
export function standbyKey(c: Command): string {
  return JSON.stringify([c.cmd, c.args, c.cwd, c.lockstep]);
}

/** Thrown when a program would have to run without any sandbox layer and the user did not allow it. */
export class UnsandboxedError extends Error {
  override name = "UnsandboxedError";
}

/** The command that runs a node's worker in the run's mode. */
export function workerCommand(ctx: LaunchContext, builtins: Record<string, BuiltinWorker>): Command {
  const { node, runDir, state } = ctx;
  const scope = scopeDir(runDir, node);
  const audit = `${runDir}/logs/audit/${node.id}.${ctx.attempt}.${Date.now()}.jsonl`;
  const w = state.mode === "mock" ? undefined : node.worker;
  const scratch = scratchDir(runDir, `${node.id}.${ctx.attempt}`);
  if (!w || w.type === "builtin") {
    const b = w?.type === "builtin" ? builtins[w.name] : undefined;
    if (w?.type === "builtin" && !b) {
      throw new RangeError(`Cannot start ${node.id}: unknown built-in worker "${w.name}"`);
    }
    const script = b?.script ?? "mock_worker";
    const config = workerConfig(ctx, w?.type === "builtin" ? w.args ?? {} : {});
    const read = [
      scope,
      ...[...Object.values(config.ancestors), ...Object.values(config.sources)].map((r) => r.scope),
      ...(b?.read?.(runDir) ?? []),
    ];
    const d = denoScript(script, [], { read, write: [scope, config.faultLog], env: DENO_WORKER_ENV }, audit);
    const self = selfExec();
    // Arrow's own workers are boxed by bubblewrap only (a watch-only namespace is for the user's programs).
    const boxed = self && ctx.bwrap
      ? sandboxed({ ...ctx, watch: null }, config, [d.cmd, ...d.args], scratch)
      : null;
    const env = protocolEnv(ctx, config, scratch);
    return {
      cmd: boxed ? boxed.argv[0]! : d.cmd,
      args: boxed ? boxed.argv.slice(1) : d.args,
      env: {
        ...baseEnv(),
        ...env,
        ...d.env,
        // A plain (free-running) worker has no handshake: it reads its config from the env.
        ...(b && !b.lockstep ? { ARROW_CONFIG: canonical(config) } : {}),
      },
      cwd: scope,
      lockstep: b ? b.lockstep : true,
      audit: self ? null : audit,
      sandbox: boxed ? "bwrap" : self ? "none" : "deno",
      shadows: boxed?.shadows ?? [],
      refusing: boxed?.refusing ?? [],
      config,
    };
  }
  if (w.type === "agent") {
    if (state.mode !== "live") {
      throw new RangeError(`Cannot start ${node.id}: agent workers run on the live path (--live)`);
    }
    return agentCommand(ctx, w, scratch);
  }
  const config = workerConfig(ctx);
  const vars = {
    scope,
    run: runDir,
    node: node.id,
    nodes: `${runDir}/nodes`,
    plan: state.plan.dir ?? "",
    fault_log: config.faultLog,
  };
  const argv = w.argv.map((a) => besidePlan(expand(a, vars), state.plan.dir));
  const env = { ...baseEnv(), ...protocolEnv(ctx, config, scratch), ...(w.env ?? {}) };
  if (!ctx.bwrap && !ctx.unsandboxed) {
    throw new UnsandboxedError(
      `Cannot start ${node.id}: bubblewrap is not available to sandbox it (install it: apt-get install bubblewrap), ` +
        `or run with --unsandboxed to run it without a sandbox`,
    );
  }
  // Under bubblewrap; unconfined (--unsandboxed), in a watch-only namespace where one can be made, else bare.
  const boxed = sandboxed(ctx, config, argv, scratch);
  if (!boxed) makeScratch(scratch);
  const run = boxed?.argv ?? argv;
  return {
    cmd: run[0]!,
    args: run.slice(1),
    env,
    cwd: scope,
    lockstep: false,
    audit: null,
    sandbox: boxed?.by === "bwrap" ? "bwrap" : "none",
    shadows: boxed?.shadows ?? [],
    refusing: boxed?.refusing ?? [],
    config: null,
  };
}

/** The LLM endpoint settings an agent worker may see (and nothing else of the host's secrets). */
const LLM_ENV = [
  "ARROW_LLM_BASE_URL",
  "ARROW_LLM_API_KEY",
  "ARROW_LLM_MODEL",
  "ARROW_LLM_TIMEOUT_S",
  "ARROW_LLM_MAX_RETRIES",
  "ARROW_LLM_STREAM",
];

/**
 * An LLM agent's worker: Arrow's own agent loop (src/workers/agent_worker.ts) runs outside the sandbox, because
 * it talks to the LLM endpoint; every command the agent asks for runs inside the node's bubblewrap layout
 * (the `sandbox` prefix), and token usage comes from the API's usage fields into a file the engine reads.
 */
function agentCommand(
  ctx: LaunchContext,
  w: Extract<PlanNode["worker"], { type: "agent" }>,
  scratch: string,
): Command {
  const { runDir, node } = ctx;
  const config = workerConfig(ctx);
  if (!ctx.bwrap && !ctx.unsandboxed) {
    throw new UnsandboxedError(
      `Cannot start agent ${node.id}: bubblewrap is not available to sandbox its commands (${"install it: apt-get install bubblewrap"}), or run with --unsandboxed`,
    );
  }
  const boxed = sandboxed(ctx, config, [], scratch);
  if (!boxed) makeScratch(scratch);
  const cast = config.faults.find((f) =>
    f.kind === "bait" && (f.attempts as number[] | undefined ?? [1]).includes(ctx.attempt)
  );
  const decoy = cast?.decoy as BaitKind | undefined;
  const bait = decoy && BAITS[decoy] ? { prompt: BAITS[decoy].prompt } : undefined;
  // Casting the decoy is the fault taking effect (the agent may or may not take it).
  if (cast && bait) {
    Deno.writeTextFileSync(config.faultLog, JSON.stringify({ kind: "bait", index: cast.index }) + "\n", {
      append: true,
    });
  }
  const agent = {
    node: node.id,
    role: node.role,
    kind: node.kind,
    scope: config.scope,
    nodes: config.nodes,
    inputs: config.ancestors,
    sources: config.sources,
    protocol: {
      version: config.protocol.version,
      metric: config.protocol.metric,
      direction: config.protocol.direction,
    },
    args: {
      prompt: w.prompt,
      ...(w.model ? { model: w.model } : {}),
      ...(w.max_steps ? { max_steps: w.max_steps } : {}),
    },
    faults: config.faults,
    attempt: ctx.attempt,
    lap: config.lap,
    resume: config.resume,
    sandbox: boxed?.argv ?? [], // the command's argv follows
    usage: `${runDir}/.arrow/usage/${node.id}.jsonl`,
    transcript: `${runDir}/logs/agent/${node.id}.jsonl`,
    ...(bait?.prompt ? { bait: bait.prompt } : {}),
    frozen: config.frozen,
  };
  Deno.mkdirSync(`${runDir}/logs/agent`, { recursive: true });
  const llm: Record<string, string> = {};
  for (const k of LLM_ENV) {
    const v = Deno.env.get(k);
    if (v !== undefined) llm[k] = v;
  }
  const d = isCompiled() ? { cmd: Deno.execPath(), args: ["__worker", "agent_worker"] } : {
    cmd: Deno.execPath(),
    args: ["run", "-A", "--no-prompt", "--quiet", "--config", CONFIG, `${WORKERS_DIR}agent_worker.ts`],
  };
  return {
    cmd: d.cmd,
    args: d.args,
    env: { ...baseEnv(), ...protocolEnv(ctx, config, scratch), ...llm, ARROW_CONFIG: canonical(agent) },
    cwd: config.scope,
    lockstep: false,
    audit: null,
    sandbox: boxed?.by === "bwrap" ? "bwrap" : "none",
    shadows: boxed?.shadows ?? [],
    refusing: boxed?.refusing ?? [],
    config: null,
  };
}

const CONFIG = new URL("../../../deno.json", import.meta.url).pathname;
