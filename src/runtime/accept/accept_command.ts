/**
 * Which command checks a node's claim. `@manifest` and `@claim` run Arrow's own checker with read access to
 * the scope, the inputs and the frozen data only; `@claim` on a program Arrow has no recomputer for runs the
 * plan's declared evaluator (`protocol.evaluate`) read-only under bubblewrap; any other argv is the plan's
 * own command, sandboxed the same way. Without bubblewrap (--unsandboxed) both run unconfined, watched in a
 * mount namespace where one can be made (their writes to /tmp and $HOME land in shadows and are seen).
 *
 * @module
 */
import type { PlanNode } from "../../graph/types.ts";
import type { RunState } from "../../model/state.ts";
import { ancestors, parents } from "../../model/topology.ts";
import { ACCEPT_EPS } from "../../thresholds.ts";
import type { Refusal, Shadow } from "../sandbox/bwrap.ts";
import { readManifest } from "../scope/manifest.ts";
import {
  baseEnv,
  besidePlan,
  boxArgv,
  type Boxes,
  denoScript,
  expand,
  makeScratch,
  neededPaths,
  scopeDir,
  scratchDir,
  watchedDirs,
} from "../backend/launch.ts";

export interface AcceptanceCommand {
  kind: "builtin" | "evaluator" | "argv";
  cmd: string;
  args: string[];
  env: Record<string, string>;
  /** What the evidence shows as the acceptance argv. */
  argv: string[];
  /** The evaluator's argv as run (kind evaluator). */
  evaluator?: string[];
  /** Why it cannot run at all (it then counts as exit 127 with this as stderr). */
  refuse?: string;
  /**
   * Where a write outside its lane lands and is seen after it ran: under bubblewrap (its lane read-only), or
   * in a watch-only namespace (its lane, its scope included, the host's).
   */
  shadows?: Shadow[];
  /**
   * Run without bubblewrap (--unsandboxed): what it writes in its scope or the plan's directory lands there,
   * seen by comparing them before and after.
   */
  unconfined?: true;
  /** Under bubblewrap, the scope when it was too large to copy (a write to it is refused, not caught). */
  refusing?: Refusal[];
  /** Under bubblewrap, the lanes bound read-only (its inputs, a refusing scope): what its stderr may name. */
  readOnly?: string[];
}

/** The scope holding the frozen data set: the verified data node whose manifest carries the frozen hashes. */
export function frozenData(
  state: RunState,
  runDir: string,
  forNode?: string,
): { scope: string; csv: string; split: string | null } | null {
  const f = state.frozen;
  // Before the tuple is frozen, the data set a node stands on is its verified data-role ancestor.
  const candidates = f
    ? state.plan.nodes
    : state.plan.nodes.filter((n) => forNode && ancestors(state, forNode).includes(n.id));
  for (const n of candidates) {
    const ns = state.nodes[n.id]!;
    const m = ns.manifest;
    if (n.role !== "data" || ns.status !== "verified" || !m) continue;
    if (f && (m.data_hash !== f.data_hash || m.split_hash !== f.split_hash)) continue;
    const scope = scopeDir(runDir, n);
    const split = typeof m.extra?.split === "string" ? `${scope}/${m.extra.split}` : null;
    return { scope, csv: m.artifact ? `${scope}/${m.artifact}` : scope, split };
  }
  return null;
}

/** The node's scripted behaviour on the mock path, as the @claim checker recomputes it. */
function mockSpec(state: RunState, node: PlanNode, runDir: string): Record<string, unknown> {
  const attempt = state.nodes[node.id]!.attempt;
  const override = state.faults.filter((f) => {
    if (f.node !== node.id || f.kind !== "trainer_profile") return false;
    const list = f.spec.attempts as number[] | undefined;
    return !list || list.includes(attempt);
  }).at(-1)?.spec.profile as Record<string, unknown> | undefined;
  const sources = Object.fromEntries(
    parents(state, node.id, "stream").map((
      id,
    ) => [id, scopeDir(runDir, state.plan.nodes.find((n) => n.id === id)!)]),
  );
  return {
    kind: node.kind,
    role: node.role,
    ...(node.mock.score !== undefined ? { score: node.mock.score } : {}),
    ...(node.kind === "long" ? { profile: { ...node.mock.profile, ...override } } : {}),
    ...(node.kind === "reactive" ? { sources } : {}),
  };
}

function readableOf(state: RunState, node: PlanNode, runDir: string): string[] {
  const ids = [...ancestors(state, node.id), ...parents(state, node.id, "stream")];
  return ids.map((id) => scopeDir(runDir, state.plan.nodes.find((n) => n.id === id)!));
}

/**
 * A program run in `scope` in its box: read-only under bubblewrap, or watched in a namespace (unconfined);
 * null when there is neither (it runs bare).
 */
function boxed(
  state: RunState,
  node: PlanNode,
  runDir: string,
  box: Boxes,
  argv: string[],
  extraReadable: string[],
):
  | Pick<AcceptanceCommand, "cmd" | "args" | "shadows" | "refusing" | "readOnly" | "unconfined"> & {
    scratch: string;
  }
  | null {
  if (!box.bwrap && !box.watch) return null;
  const scratch = scratchDir(runDir, `${node.id}.accept`);
  makeScratch(scratch);
  // One shadow per attempt's check, so a check is never blamed for what an earlier one wrote.
  const attempt = state.nodes[node.id]?.attempt ?? 0;
  const readable = [...readableOf(state, node, runDir), ...extraReadable];
  const b = boxArgv(box, {
    runDir,
    runsDir: null,
    scope: scopeDir(runDir, node),
    readable,
    writable: [scratch],
    shadowRoot: `${runDir}/.arrow/shadow/${node.id}.${attempt}.accept.${crypto.randomUUID().slice(0, 8)}`,
    scopes: [],
    // Read-only, but a write to /tmp, $HOME or the project directory lands in a shadow and is seen.
    watched: watchedDirs(),
    lean: ["/tmp"],
    needed: [...neededPaths(argv), ...(state.plan.dir ? [state.plan.dir] : [])],
    home: Deno.env.get("HOME") ?? null,
    readOnly: true,
    // The scope it judges is a copy (within COPY_LIMIT): a check that rewrites it is seen, not refused.
    copyScope: true,
  }, argv)!;
  return {
    cmd: b.argv[0]!,
    args: b.argv.slice(1),
    scratch,
    shadows: b.shadows,
    refusing: b.refusing,
    ...(b.by === "bwrap"
      ? { readOnly: [...readable, ...b.refusing.map((r) => r.path)] }
      : { unconfined: true as const }),
  };
}

export function acceptanceCommand(
  state: RunState,
  node: PlanNode,
  runDir: string,
  box: Boxes,
  wait = false,
): AcceptanceCommand {
  const scope = scopeDir(runDir, node);
  const head = node.acceptance[0]!;
  const program = state.mode !== "mock" && (node.worker?.type === "command" || node.worker?.type === "agent");
  const evaluate = state.plan.protocol.evaluate;
  if (head === "@claim" && program && evaluate) {
    const data = frozenData(state, runDir, node.id);
    const vars: Record<string, string> = { scope, node: node.id, data: data?.scope ?? "", artifact: "" };
    // Read as every worker output is read (no link followed, regular files only, bounded): a FIFO, a link to
    // /dev/zero or a huge file here must not block or bloat arrow.
    const read = readManifest(scope);
    const named = read.manifest?.artifact;
    let artifact = "";
    let why = "";
    if (typeof named === "string" && named && !named.split("/").includes("..") && !named.startsWith("/")) {
      // The artifact must be the node's own: a link could hand the evaluator a sibling's better model.
      const kind = entryKind(scope, named);
      if (kind === "file" || kind === "dir") artifact = `${scope}/${named}`;
      else why = `the artifact "${named.slice(0, 200)}" is ${kind === "missing" ? "missing" : `a ${kind}`}`;
    }
    vars.artifact = artifact;
    const argv = evaluate.map((a) =>
      besidePlan(
        a.replace(/\{(artifact|scope|data|node)\}/g, (_, k: string) => vars[k] ?? ""),
        state.plan.dir,
      )
    );
    const shown = ["@claim", ...argv];
    if (!artifact) {
      return {
        kind: "evaluator",
        cmd: "",
        args: [],
        env: {},
        argv: shown,
        evaluator: argv,
        refuse: why
          ? `${why}; nothing of the node's own to recompute the claim from`
          : read.error && !read.manifest
          ? `${read.error}; no artifact to recompute the claim from`
          : "results.json names no artifact inside the scope to recompute the claim from",
      };
    }
    const env = { ...baseEnv(), ARROW_SCOPE: scope, ARROW_NODE: node.id, PYTHONDONTWRITEBYTECODE: "1" };
    const b = boxed(state, node, runDir, box, argv, data ? [data.scope] : []);
    if (!b) {
      // A cache Python writes beside an imported module would be a change of the plan's directory.
      return {
        kind: "evaluator",
        cmd: argv[0]!,
        args: argv.slice(1),
        env,
        argv: shown,
        evaluator: argv,
        unconfined: true,
      };
    }
    const { scratch, ...run } = b;
    return {
      kind: "evaluator",
      ...run,
      env: { ...env, TMPDIR: `${scratch}/tmp` },
      argv: shown,
      evaluator: argv,
    };
  }
  if (head === "@manifest" || head === "@claim") {
    const data = frozenData(state, runDir);
    const extra: string[] = [];
    if (state.mode === "mock") extra.push("--mock", JSON.stringify(mockSpec(state, node, runDir)));
    else if (data?.split && state.frozen) {
      extra.push("--data", data.csv, data.split, state.frozen.data_hash, state.frozen.split_hash);
    }
    const args = [
      ...(wait ? ["--wait"] : []),
      head.slice(1),
      scope,
      node.id,
      state.plan.protocol.direction,
      String(ACCEPT_EPS),
      ...extra,
    ];
    const read = [scope, ...readableOf(state, node, runDir), ...(data ? [data.scope] : [])];
    const d = denoScript("check_claim", args, { read, write: [], env: [] }, null);
    return { kind: "builtin", ...d, env: { ...baseEnv(), ...d.env }, argv: [...node.acceptance] };
  }
  const vars = { scope, run: runDir, node: node.id, nodes: `${runDir}/nodes` };
  const argv = node.acceptance.map((a) => expand(a, vars));
  const env: Record<string, string> = {
    ...baseEnv(),
    ARROW_RUN_DIR: runDir,
    ARROW_SCOPE: scope,
    ARROW_NODE: node.id,
    PYTHONDONTWRITEBYTECODE: "1",
  };
  const b = boxed(state, node, runDir, box, argv, []);
  if (!b) return { kind: "argv", cmd: argv[0]!, args: argv.slice(1), env, argv, unconfined: true };
  const { scratch, ...run } = b;
  // Its temporary files go to a scratch tree of its own, never to the shared /tmp a shadow watches.
  return { kind: "argv", ...run, env: { ...env, TMPDIR: `${scratch}/tmp` }, argv };
}

/**
 * What `rel` is inside `scope`, following no link on the way (a linked directory in the path counts as a
 * link): only a file or a directory of the scope's own can be an artifact.
 */
function entryKind(
  scope: string,
  rel: string,
): "file" | "dir" | "symbolic link" | "special file" | "missing" {
  let path = scope;
  const parts = rel.split("/").filter((p) => p && p !== ".");
  try {
    for (const [i, part] of parts.entries()) {
      path += `/${part}`;
      const st = Deno.lstatSync(path);
      if (st.isSymlink) return "symbolic link";
      if (i < parts.length - 1 && !st.isDirectory) return "missing";
      if (i === parts.length - 1) return st.isFile ? "file" : st.isDirectory ? "dir" : "special file";
    }
  } catch {
    return "missing";
  }
  return "dir";
}
