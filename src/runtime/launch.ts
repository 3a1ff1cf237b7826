/**
 * How a node's worker and its acceptance command are started: which program, which sandbox layer, which
 * environment. Deno children get Deno permissions (write only to their scope, audited); any other program
 * runs under bubblewrap when it is installed. Placeholders {scope} {run} {node} {nodes} expand in argv.
 *
 * @module
 */
import type { PlanNode } from "../graph/types.ts";
import { canonical } from "../model/json.ts";
import type { RunState } from "../model/state.ts";
import { parents } from "../model/topology.ts";
import type { InputRef, WorkerConfig } from "../../scripts/lib/config.ts";

export const SCRIPTS_DIR = new URL("../../scripts/", import.meta.url).pathname;

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
  sandbox: "deno" | "bwrap" | "none";
  /** Shadow directory bound over nodes/ under bubblewrap, where stray writes land. */
  shadow: string | null;
  /** Config sent as the first stdin line (lock-step workers only). */
  config: WorkerConfig | null;
}

/** Environment a child may see: a few host variables and Arrow's own. */
export function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of ["HOME", "PATH", "DENO_DIR", "LANG", "TMPDIR"]) {
    const v = Deno.env.get(k);
    if (v !== undefined) env[k] = v;
  }
  return env;
}

/** Deno flags that keep a child offline and unable to touch the lockfile or fetch packages. */
const LOCKED = ["--no-prompt", "--no-config", "--no-lock", "--no-remote", "--no-npm", "--quiet"];

const MAIN = new URL("../cli/main.ts", import.meta.url).pathname;

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
    const config = new URL("../../deno.json", import.meta.url).pathname;
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
  return { cmd: Deno.execPath(), args: ["run", ...flags, `${SCRIPTS_DIR}${script}.ts`, ...args], env };
}

export function expand(arg: string, vars: Record<string, string>): string {
  return arg.replace(/\{(scope|run|node|nodes)\}/g, (_, k: string) => vars[k] ?? "");
}

export interface LaunchContext {
  runDir: string;
  state: RunState;
  node: PlanNode;
  attempt: number;
  resume: string | null;
  catchup: number;
  bwrap: string | null;
}

export function scopeDir(runDir: string, node: PlanNode): string {
  return `${runDir}/nodes/${node.scope}`;
}

function refs(ctx: LaunchContext, kind: "artifact" | "stream"): Record<string, InputRef> {
  const { state, runDir } = ctx;
  return Object.fromEntries(
    parents(state, ctx.node.id, kind).map((id) => {
      const n = state.plan.nodes.find((x) => x.id === id)!;
      return [id, { scope: scopeDir(runDir, n), role: n.role }];
    }),
  );
}

export function workerConfig(
  ctx: LaunchContext,
  args: Record<string, string | number | boolean> = {},
): WorkerConfig {
  const { state, node, runDir } = ctx;
  const ns = state.nodes[node.id]!;
  return {
    node: node.id,
    role: node.role,
    kind: node.kind,
    scope: scopeDir(runDir, node),
    nodes: `${runDir}/nodes`,
    inputs: refs(ctx, "artifact"),
    sources: refs(ctx, "stream"),
    protocol: state.plan.protocol,
    mock: node.mock as WorkerConfig["mock"],
    args,
    faults: (state.workerFaults[node.id] ?? []) as WorkerConfig["faults"],
    attempt: ctx.attempt,
    lap: ns.lap + 1,
    resume: ctx.resume ? `${scopeDir(runDir, node)}/${ctx.resume}` : null,
    catchup: ctx.catchup,
    delivered: ctx.catchup > 0 ? ns.delivered : [],
  };
}

const ARROW_ENV = ["ARROW_CONFIG", "ARROW_RUN_DIR", "ARROW_SCOPE", "ARROW_NODE", "ARROW_RESUME_FROM"];

/** The part of a worker's command that does not depend on the attempt: what a standby process is. */
export function standbyKey(c: Command): string {
  return JSON.stringify([c.cmd, c.args, c.cwd, c.lockstep]);
}

/** The command that runs a node's worker in the run's mode. */
export function workerCommand(ctx: LaunchContext, builtins: Record<string, BuiltinWorker>): Command {
  const { node, runDir, state } = ctx;
  const scope = scopeDir(runDir, node);
  const audit = `${runDir}/logs/audit/${node.id}.${ctx.attempt}.${Date.now()}.jsonl`;
  const arrowEnv: Record<string, string> = { ARROW_RUN_DIR: runDir, ARROW_SCOPE: scope, ARROW_NODE: node.id };
  const w = state.mode === "mock" ? undefined : node.worker;
  if (!w || w.type === "builtin") {
    const b = w?.type === "builtin" ? builtins[w.name] : undefined;
    if (w?.type === "builtin" && !b) {
      throw new RangeError(`Cannot start ${node.id}: unknown built-in worker "${w.name}"`);
    }
    const script = b?.script ?? "mock_worker";
    const config = workerConfig(ctx, w?.type === "builtin" ? w.args ?? {} : {});
    const read = [`${runDir}/nodes`, ...(b?.read?.(runDir) ?? [])];
    const d = denoScript(script, [], { read, write: [scope], env: ARROW_ENV }, audit);
    const self = selfExec();
    const boxed = self && ctx.bwrap ? bwrapWorker(ctx, scope, [d.cmd, ...d.args]) : null;
    return {
      cmd: boxed ? ctx.bwrap! : d.cmd,
      args: boxed ? boxed.args : d.args,
      env: {
        ...(boxed ? { TMPDIR: boxed.scratch } : {}),
        ...baseEnv(),
        ...d.env,
        ...arrowEnv,
        // A plain (free-running) worker has no handshake: it reads its config and resume point from the env.
        ...(b && !b.lockstep ? { ARROW_CONFIG: canonical(config) } : {}),
        ...(b && !b.lockstep && ctx.resume ? { ARROW_RESUME_FROM: `${scope}/${ctx.resume}` } : {}),
      },
      cwd: scope,
      lockstep: b ? b.lockstep : true,
      audit: self ? null : audit,
      sandbox: boxed ? "bwrap" : self ? "none" : "deno",
      shadow: boxed?.shadow ?? null,
      config,
    };
  }
  if (w.type === "agent") throw new RangeError(`Cannot start ${node.id}: agent workers need --live`);
  const vars = { scope, run: runDir, node: node.id, nodes: `${runDir}/nodes` };
  const argv = w.argv.map((a) => expand(a, vars));
  const env = {
    ...baseEnv(),
    ...arrowEnv,
    ...(ctx.resume ? { ARROW_RESUME_FROM: `${scope}/${ctx.resume}` } : {}),
    ...(w.env ?? {}),
  };
  if (!ctx.bwrap) {
    return {
      cmd: argv[0]!,
      args: argv.slice(1),
      env,
      cwd: scope,
      lockstep: false,
      audit: null,
      sandbox: "none",
      shadow: null,
      config: null,
    };
  }
  const boxed = bwrapWorker(ctx, scope, argv);
  return {
    cmd: ctx.bwrap,
    args: boxed.args,
    env: { ...env, TMPDIR: boxed.scratch },
    cwd: scope,
    lockstep: false,
    audit: null,
    sandbox: "bwrap",
    shadow: boxed.shadow,
    config: null,
  };
}

/** A worker argv wrapped in bubblewrap, with its shadow (where stray writes land) and scratch directories. */
function bwrapWorker(ctx: LaunchContext, scope: string, argv: string[]) {
  const { runDir, node, state } = ctx;
  // One shadow per attempt, so a restarted node is not blamed again for what an earlier attempt left there.
  const shadow = `${runDir}/.arrow/shadow/${node.id}.${ctx.attempt}`;
  mirrorScopes(shadow, state.plan.nodes.map((n) => n.scope));
  const readable = [...Object.values(refs(ctx, "artifact")), ...Object.values(refs(ctx, "stream"))].map((r) =>
    r.scope
  );
  const scratch = scratchDir(runDir, `${node.id}.${ctx.attempt}`);
  return {
    args: [...bwrapArgs({ scope, run: runDir, shadow, readable, scratch }), "--", ...argv],
    shadow,
    scratch,
  };
}

/**
 * Creates every scope's directory (empty) in a shadow, so that a sandboxed write into another node's scope
 * lands there — visible to the supervisor — instead of failing on a missing directory and leaving no trace.
 */
export function mirrorScopes(shadow: string, scopes: readonly string[]): void {
  for (const s of scopes) Deno.mkdirSync(`${shadow}/${s}`, { recursive: true });
}

/**
 * A private, writable scratch directory for one sandboxed process (its TMPDIR). The host's /tmp stays
 * visible read-only rather than hidden under a tmpfs: programs and run directories may live there.
 */
export function scratchDir(runDir: string, label: string): string {
  const dir = `${runDir}/.arrow/tmp/${label}`;
  Deno.mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * bubblewrap arguments: the whole filesystem read-only with a private /tmp; the run directory visible
 * read-only (also when it lives under /tmp) but its .arrow/ (snapshots of every scope) hidden; the run's
 * nodes/ replaced by a per-node shadow directory (so a stray write lands somewhere harmless and visible); the
 * node's own scope bound back read-write and its inputs read-only on top; no network, own session, dies
 * with arrow.
 */
export function bwrapArgs(
  o: { scope: string; run: string; shadow: string; readable: string[]; scratch: string; hide?: string[] },
): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  args.push("--ro-bind", o.run, o.run, "--tmpfs", `${o.run}/.arrow`, "--bind", o.scratch, o.scratch);
  args.push("--bind", o.shadow, `${o.run}/nodes`);
  for (const r of o.readable) args.push("--ro-bind", r, r);
  args.push("--bind", o.scope, o.scope);
  for (const h of o.hide ?? []) args.push("--tmpfs", h);
  args.push("--unshare-all", "--die-with-parent", "--new-session", "--chdir", o.scope);
  return args;
}

export interface BuiltinWorker {
  script: string;
  lockstep: boolean;
  /** Extra directories the worker may read, given the run directory. */
  read?: (runDir: string) => string[];
}

/**
 * The acceptance command of a node; @manifest and @claim run our checker with read-only access. A built-in
 * checker can be started ahead (`wait`): it reads nothing until it is told to go, after the claim.
 */
export function acceptanceCommand(
  state: RunState,
  node: PlanNode,
  runDir: string,
  bwrap: string | null,
  wait = false,
): {
  cmd: string;
  args: string[];
  env: Record<string, string>;
  argv: string[];
  builtin: boolean;
} {
  const scope = scopeDir(runDir, node);
  const head = node.acceptance[0]!;
  if (head === "@manifest" || head === "@claim") {
    const tol = state.mode === "mock" ? "1e-9" : "1e-6";
    const args = [
      ...(wait ? ["--wait"] : []),
      head.slice(1),
      scope,
      node.id,
      state.plan.protocol.direction,
      tol,
    ];
    const d = denoScript("check_claim", args, {
      read: [`${runDir}/nodes`, `${runDir}/data`],
      write: [],
      env: [],
    }, null);
    return { ...d, env: { ...baseEnv(), ...d.env }, argv: [...node.acceptance], builtin: true };
  }
  const vars = { scope, run: runDir, node: node.id, nodes: `${runDir}/nodes` };
  const argv = node.acceptance.map((a) => expand(a, vars));
  const env: Record<string, string> = {
    ...baseEnv(),
    ARROW_RUN_DIR: runDir,
    ARROW_SCOPE: scope,
    ARROW_NODE: node.id,
  };
  if (!bwrap) return { cmd: argv[0]!, args: argv.slice(1), env, argv, builtin: false };
  // Read-only everything with a private scratch directory; .arrow/ hidden as for workers.
  const scratch = scratchDir(runDir, `${node.id}.accept`);
  env.TMPDIR = scratch;
  const ro = [
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--ro-bind",
    runDir,
    runDir,
    "--tmpfs",
    `${runDir}/.arrow`,
    "--bind",
    scratch,
    scratch,
    "--unshare-all",
    "--die-with-parent",
    "--new-session",
    "--chdir",
    scope,
    "--",
  ];
  return { cmd: bwrap, args: [...ro, ...argv], env, argv, builtin: false };
}
