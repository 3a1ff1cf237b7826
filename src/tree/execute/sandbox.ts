/**
 * The command line of every tree-mode child (executor, recomputation, gate, final test): the harness under
 * Deno permissions — read only its data directory, its scope and the toolkit; write only its scope (the
 * executor) or nothing; offline, no npm, no prompt; every permission check audited — and, when bubblewrap
 * is available, inside a mount namespace where the user's data directory, every run and every secret are
 * hidden and nothing but the scope is writable, with no network.
 *
 * Why both: Deno checks (and audits) what the artifact's modules import, since the harness loads them at
 * run time, but not the static module graph of a program's main module; bubblewrap makes the question moot
 * — the held-out and test labels are simply not in the child's filesystem.
 *
 * @module
 */
import { dirname } from "node:path";
import { bwrapLayout, type Refusal, type Shadow } from "../../runtime/sandbox/mod.ts";
import { denoDir, isCompiled, selfExec } from "../../runtime/backend/mod.ts";
import { type HarnessLane, LANE_ENV } from "./harness/lane.ts";

export const TOOLKIT_DIR = new URL("../../tabular/", import.meta.url).pathname.replace(/\/$/, "");
export const HARNESS_DIR = new URL("./harness/", import.meta.url).pathname.replace(/\/$/, "");
export const HARNESS = `${HARNESS_DIR}/harness.ts`;

export type ChildMode = "execute" | "recompute" | "screen" | "predict" | "refit";

export interface SandboxContext {
  runDir: string;
  /** The directory holding other runs (hidden too), when known. */
  runsDir: string | null;
  /** Where the executors' inputs are (dev.csv, task.json). */
  dataDir: string;
  taskFile: string;
  devFile: string;
  /** The user's CSV: every row, every label. Hidden from children under bubblewrap. */
  userCsv: string;
  bwrap: string | null;
}

export interface ChildCommand {
  cmd: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  audit: string;
  /** Where a child without metrics (recomputation, prediction) logs its progress: its hang clock. */
  progress: string | null;
  read: string[];
  write: string[];
  /**
   * The layers around the harness: bubblewrap and/or Deno's permissions — from its flags, or (`self`, the
   * harness run from the arrow binary itself) from the worker its job runs in (harness/lane.ts).
   */
  sandbox: "bwrap+deno" | "deno" | "bwrap+self" | "self";
  /**
   * Under bubblewrap, where a write outside the lane lands instead of being refused in silence (/tmp,
   * $HOME, the project directory): what `shadowEscapes` reads after the child (or each slot job) ends.
   */
  shadows?: Shadow[];
  /**
   * Under bubblewrap, the lanes its layout left read-only binds (a $HOME or project directory past
   * MAX_SHADOWED_ENTRIES): a write there is refused, seen only when its stderr names it (child.ts), and the
   * lanes themselves go on the node's record.
   */
  refusing?: Refusal[];
}

/** `--unstable-worker-options`: the harness gives each fold's worker permissions narrower than its own. */
const DENO_FLAGS = [
  "run",
  "--no-prompt",
  "--no-config",
  "--no-lock",
  "--no-remote",
  "--no-npm",
  "--quiet",
  "--unstable-worker-options",
];
const REPO = new URL("../../../", import.meta.url).pathname.replace(/\/$/, "");
/** From source, a self-executing harness is arrow's own entry point run with the project's config. */
const SELF_FROM_SOURCE = [
  "run",
  "-A",
  "--no-prompt",
  "--quiet",
  "--unstable-worker-options",
  "--config",
  `${REPO}/deno.json`,
  `${REPO}/src/cli/main.ts`,
];
/** What a from-source self-executing harness must read beyond the toolkit and itself: arrow's source. */
const selfReads = (): string[] =>
  selfExec() && !isCompiled() ? [`${REPO}/src`, `${REPO}/deno.json`, `${REPO}/deno.lock`] : [];

/** A self-executing harness is handed its lane to confine its job to (harness/lane.ts). */
const laneEnv = (self: boolean, lane: HarnessLane): Record<string, string> =>
  self ? { [LANE_ENV]: JSON.stringify(lane) } : {};

/**
 * The harness's argv after the program: `deno run <lane flags> harness.ts …`, or — in a compiled arrow, or
 * from source with ARROW_WORKER_MODE=self — `arrow __worker tree_harness …` (the lane is then the
 * bubblewrap layout where there is one; the per-fit workers keep their own narrow permissions either way).
 */
function harnessArgv(grants: string[], rest: string[]): { args: string[]; self: boolean } {
  if (isCompiled()) return { args: ["__worker", "tree_harness", ...rest], self: true };
  if (selfExec()) return { args: [...SELF_FROM_SOURCE, "__worker", "tree_harness", ...rest], self: true };
  return { args: [...DENO_FLAGS, ...grants, HARNESS, ...rest], self: false };
}

const SYSTEM = new Set([
  "/",
  "/usr",
  "/etc",
  "/bin",
  "/sbin",
  "/lib",
  "/lib64",
  "/var",
  "/opt",
  "/proc",
  "/dev",
]);

const under = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith("/") ? dir : dir + "/");

/**
 * bubblewrap arguments (before `--`) from the one layout builder (runtime/sandbox/bwrap.ts): the run, other runs
 * and the user's data hidden, the toolkit, the harness and the data directory bound back read-only, the
 * scope writable for an executor, the audit directory writable — and, as for graph nodes, /tmp (lean),
 * $HOME and the project directory as shadows of this child's own, so a write there that Deno's layer did
 * not see (a program it did not start) is caught and named rather than refused in silence.
 */
export function treeBwrapArgs(
  ctx: SandboxContext,
  scope: string,
  writable: boolean,
  extra: string[],
  audit: string,
): { args: string[]; shadows: Shadow[]; refusing: Refusal[] } {
  const needed = [Deno.execPath(), denoDir(), TOOLKIT_DIR, HARNESS_DIR].filter((p): p is string => !!p);
  // The user's CSV holds every label: its directory is hidden, or the file alone when the directory also
  // holds the system or what the harness needs. Where the file really is: a path through a symlinked
  // directory (a data folder linked into the project) is hidden at its target, which hides it through the
  // link too (bubblewrap cannot mount over a symlink).
  const csv = realPath(ctx.userCsv);
  const csvDir = dirname(csv);
  const fileOnly = SYSTEM.has(csvDir) || needed.some((p) => under(p, csvDir));
  const home = Deno.env.get("HOME") ?? null;
  return bwrapLayout({
    runDir: ctx.runDir,
    runsDir: ctx.runsDir,
    scope,
    readable: [TOOLKIT_DIR, HARNESS_DIR, ctx.dataDir, ...extra, ...selfReads()],
    writable: [dirname(audit)],
    // One per child or slot (never reused, so nothing an earlier one left is blamed on it); outside
    // everything the child can see.
    shadowRoot: `${ctx.runDir}/.arrow/shadow/tree/${crypto.randomUUID().slice(0, 12)}`,
    scopes: [],
    watched: ["/tmp", ...(home ? [home] : []), Deno.cwd()],
    lean: ["/tmp"],
    needed,
    home,
    readOnly: !writable,
    masked: [fileOnly ? csv : csvDir],
  });
}

function realPath(p: string): string {
  try {
    return Deno.realPathSync(p);
  } catch {
    return p;
  }
}

/** A harness process's whole environment: its audit log, Deno's cache, PATH and HOME, and `extra`. */
function childEnv(audit: string, extra: Record<string, string> = {}): Record<string, string> {
  const dd = denoDir();
  return {
    DENO_AUDIT_PERMISSIONS: audit,
    NO_COLOR: "1",
    RUST_BACKTRACE: "0",
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    ...(dd ? { DENO_DIR: dd } : {}),
    ...(Deno.env.get("HOME") ? { HOME: Deno.env.get("HOME")! } : {}),
    ...extra,
  };
}

/**
 * The harness started in `mode` for `node`. `features`: the features file of a prediction (merge gate or
 * final test), readable by that child alone.
 */
export function childCommand(
  ctx: SandboxContext,
  mode: ChildMode,
  node: string,
  scope: string,
  audit: string,
  features?: string,
): ChildCommand {
  const extra = features ? [dirname(features)] : [];
  const read = [ctx.dataDir, scope, TOOLKIT_DIR, HARNESS_DIR, ...extra];
  // The harness' own progress file sits beside the audit log (writable under bubblewrap too); the
  // artifact's code never runs with this permission (its workers may write nothing).
  const progress = mode === "execute" ? null : audit.replace(/(\.jsonl)?$/, ".progress.jsonl");
  const write = mode === "execute" ? [scope] : [progress!];
  const grants = [
    `--allow-read=${read.join(",")}`,
    `--allow-write=${write.join(",")}`,
    ...(progress ? ["--allow-env=ARROW_PROGRESS"] : []),
  ];
  const rest = [mode, ctx.taskFile, ctx.devFile, scope, node, ...(features ? [features] : [])];
  const h = harnessArgv(grants, rest);
  const lane = { read, write, env: progress ? ["ARROW_PROGRESS"] : [] };
  const env = childEnv(audit, {
    ...(progress ? { ARROW_PROGRESS: progress } : {}),
    ...laneEnv(h.self, lane),
  });
  const base = { env, cwd: scope, audit, progress, read: [...read, ...selfReads()], write };
  return wrapped(ctx, base, h, () => treeBwrapArgs(ctx, scope, mode === "execute", extra, audit));
}

/** The harness command as run: under bubblewrap when there is one (its layout from `box`), else bare. */
function wrapped(
  ctx: SandboxContext,
  base: Omit<ChildCommand, "cmd" | "args" | "sandbox" | "shadows" | "refusing">,
  h: { args: string[]; self: boolean },
  box: () => { args: string[]; shadows: Shadow[]; refusing: Refusal[] },
): ChildCommand {
  if (!ctx.bwrap) {
    const sandbox = h.self ? "self" : "deno";
    return { ...base, cmd: Deno.execPath(), args: h.args, sandbox, shadows: [], refusing: [] };
  }
  const b = box();
  return {
    ...base,
    cmd: ctx.bwrap,
    args: [...b.args, "--", Deno.execPath(), ...h.args],
    sandbox: h.self ? "bwrap+self" : "bwrap+deno",
    shadows: b.shadows,
    refusing: b.refusing,
  };
}

/** The directories a slot of `role` works in: executors' scopes, the screens' candidate copies, or the
 * gate's copies and features. */
export function slotRoots(ctx: SandboxContext, role: ChildMode): { scope: string; extra: string[] } {
  if (role === "predict") return { scope: `${ctx.runDir}/gate`, extra: [`${ctx.runDir}/.arrow/gate`] };
  if (role === "screen") return { scope: `${ctx.runDir}/screen`, extra: [] };
  return { scope: `${ctx.runDir}/nodes`, extra: [] };
}

/**
 * The command of a long-lived slot (slot_pool.ts): the harness in `serve` mode, under the lane of its role —
 * an executor slot may write under nodes/, a recomputation slot only reads there, a prediction slot alone
 * reads the gate's copies and features; each writes its progress file. Every job is still checked against
 * what that job alone was granted (`childCommand`'s lists).
 */
export function serverCommand(
  ctx: SandboxContext,
  role: ChildMode,
  audit: string,
  progress: string,
): ChildCommand {
  const { scope, extra } = slotRoots(ctx, role);
  for (const d of [scope, ...extra]) Deno.mkdirSync(d, { recursive: true });
  const read = [ctx.dataDir, scope, ...extra, TOOLKIT_DIR, HARNESS_DIR];
  const write = role === "execute" ? [scope, progress] : [progress];
  const h = harnessArgv([`--allow-read=${read.join(",")}`, `--allow-write=${write.join(",")}`], ["serve"]);
  const env = childEnv(audit, laneEnv(h.self, { read, write, env: [] }));
  const base = { env, cwd: scope, audit, progress, read: [...read, ...selfReads()], write };
  return wrapped(ctx, base, h, () => treeBwrapArgs(ctx, scope, role === "execute", extra, audit));
}
