/**
 * The box one program of a node runs in: its bubblewrap layout where bubblewrap is available, else — for an
 * unconfined program (--unsandboxed) where a mount namespace can be made — a watch-only namespace whose
 * /tmp, $HOME and other runs are shadows Arrow inspects; and the scratch tree and host paths it needs.
 *
 * @module
 */
import type { WorkerConfig } from "../../workers/lib/config.ts";
import { bwrapLayout, type Layout, type Refusal, type Shadow } from "../sandbox/bwrap.ts";
import { type Unshare, watchLayout } from "../sandbox/namespace.ts";
import type { LaunchContext } from "./worker_config.ts";

/** The deno cache the host uses, named explicitly because children get their own XDG_CACHE_HOME. */
export function denoDir(): string | undefined {
  const set = Deno.env.get("DENO_DIR");
  if (set) return set;
  const cache = Deno.env.get("XDG_CACHE_HOME") ??
    (Deno.env.get("HOME") ? `${Deno.env.get("HOME")}/.cache` : null);
  return cache ? `${cache}/deno` : undefined;
}

/** A private, writable scratch tree for one sandboxed process (its TMPDIR and XDG directories). */
export function scratchDir(runDir: string, label: string): string {
  return `${runDir}/.arrow/tmp/${label}`;
}

/** Creates a scratch tree (only programs that can write there get one). */
export function makeScratch(dir: string): void {
  for (const d of ["tmp", "cache", "config", "data", "state"]) {
    Deno.mkdirSync(`${dir}/${d}`, { recursive: true });
  }
}

/** Host directories whose top level is watched for stray writes: /tmp, $HOME, the project directory. */
export function watchedDirs(): string[] {
  const home = Deno.env.get("HOME");
  return ["/tmp", ...(home ? [home] : []), Deno.cwd()];
}

/**
 * Host paths a sandboxed program must see wherever they are (a lean /tmp binds back only these): the
 * absolute paths in its argv (its program files, its interpreter), PATH, Deno and its cache.
 */
export function neededPaths(argv: readonly string[]): string[] {
  const path = (Deno.env.get("PATH") ?? "").split(":");
  const out = [...argv.filter((a) => a.startsWith("/")), ...path, Deno.execPath(), denoDir() ?? ""];
  return [...new Set(out.filter((p) => p.startsWith("/")))];
}

/** A program's argv in its box, with the shadows to inspect and the lanes left read-only. */
export interface Boxed {
  argv: string[];
  shadows: Shadow[];
  refusing: Refusal[];
  /** bubblewrap confines it; a watch-only namespace only watches it (it stays unconfined). */
  by: "bwrap" | "namespace";
}

/** What this machine boxes programs with: bubblewrap, or (unconfined) a watch-only mount namespace. */
export interface Boxes {
  bwrap: string | null;
  watch?: Unshare | null;
}

/**
 * `layout` rendered for this machine: under bubblewrap, or watch-only in a mount namespace (the layout's
 * copies and hidden paths are then left out: the program is unconfined but for the watched shadows), or
 * null when there is neither.
 */
export function boxArgv(
  box: Boxes,
  layout: Layout,
  argv: string[],
): Boxed | null {
  if (box.bwrap) {
    const b = bwrapLayout(layout);
    return {
      argv: [box.bwrap, ...b.args, "--", ...argv],
      shadows: b.shadows,
      refusing: b.refusing,
      by: "bwrap",
    };
  }
  if (!box.watch) return null;
  const w = watchLayout(box.watch, layout);
  return { argv: [...w.prefix, ...argv], shadows: w.shadows, refusing: w.refusing, by: "namespace" };
}

/** A program's argv in its box for one attempt of `node`, or null when there is no box here. */
export function sandboxed(
  ctx: LaunchContext,
  cfg: WorkerConfig,
  argv: string[],
  scratch: string,
): Boxed | null {
  const { runDir, node, state } = ctx;
  if (!ctx.bwrap && !ctx.watch) return null;
  // One shadow per attempt, so a restarted node is not blamed again for what an earlier attempt left there.
  const shadowRoot = `${runDir}/.arrow/shadow/${node.id}.${ctx.attempt}`;
  Deno.mkdirSync(shadowRoot, { recursive: true });
  makeScratch(scratch);
  Deno.writeTextFileSync(cfg.faultLog, "", { append: true });
  const ancestors = Object.values(cfg.ancestors).map((r) => r.scope);
  // The plan's own directory (its evaluator, its harness programs) is a lane too, copied like an input so
  // that an edit of it is seen; the runs, the project or anything else it holds that the layout mounts on
  // its own is left out of the copy.
  const planDir = state.plan.dir;
  const planLane = planDir && planDir !== "/" ? [planDir] : [];
  const sources = Object.values(cfg.sources).map((r) => r.scope);
  return boxArgv(ctx, {
    runDir,
    runsDir: ctx.runsDir ?? null,
    scope: cfg.scope,
    readable: [...ancestors, ...planLane, ...sources],
    writable: [scratch, cfg.faultLog],
    shadowRoot,
    scopes: state.plan.nodes.map((n) => n.scope),
    watched: watchedDirs(),
    lean: ["/tmp"],
    needed: [...neededPaths(argv), ...(planDir ? [planDir] : [])],
    // Verified inputs are at rest, so a copy reads the same; a stream source is still being written, so
    // its copy is kept in step with it every tick (and a write into it is seen like any other).
    copied: [...ancestors, ...planLane],
    synced: sources,
    home: Deno.env.get("HOME") ?? null,
  }, argv);
}
