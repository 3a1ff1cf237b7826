/**
 * One executor, end to end, as an Arrow node: its scope is made from its parent's artifact plus its own
 * step (`nodes/<id>/artifact.json`, `nodes/<id>/steps/`), it runs sandboxed and
 * watched (child.ts), its claim (`results.json`) and its logged folds (`metrics.jsonl`) are read as
 * untrusted data, and — only if it claims success — Arrow recomputes the dev score itself: a second
 * sandboxed child, read-only, prints each fold's predictions from the same artifact, and they are scored
 * here against dev labels. What comes back is an observation (`ExecResult`); the step function judges it.
 *
 * @module
 */
import { basename } from "node:path";
import type { SlurmClient } from "../../runtime/slurm/mod.ts";
import { runJobChild } from "./job_child.ts";
import { createHash } from "node:crypto";
import { parseBounded } from "../../runtime/bounded_json.ts";
import type { ProcJournal } from "../../runtime/proc/mod.ts";
import { readRegular } from "../../runtime/safe_read.ts";
import { inside, RefusalLog } from "../../runtime/sandbox/mod.ts";
import { type ChildOutcome, runChild, signedLine } from "./child.ts";
import type { SlotPool } from "./slot_pool.ts";
import type { TreeData } from "../data.ts";
import { libraryWrote } from "../ideate/library.ts";
import { scoreFolds, unobserved } from "./predictions.ts";
import { keepOof, readOof, rowComparisons } from "../ensemble.ts";
import { childCommand, type SandboxContext } from "./sandbox.ts";
import type { ExecResult, TreeNode, TreeState } from "../types.ts";

export interface ExecutorWorld {
  runDir: string;
  data: TreeData;
  sandbox: SandboxContext;
  journal: ProcJournal;
  signal?: AbortSignal;
  /** Run the executor as a Slurm job through this client (job_child.ts); absent: a local child. */
  slurm?: SlurmClient | null;
  /** Long-lived harness slots (slot_pool.ts) for local jobs; absent: a fresh child per job. */
  slots?: SlotPool | null;
}

export interface ExecRun {
  result: ExecResult;
  childMs: number;
  fitMs: number;
}

/** The artifact format the harness reads (src/tree/execute/harness/compose.ts; a test keeps the two equal). */
export const ARTIFACT_FORMAT = "arrow-tree-artifact/1";

/** The least time a recomputation is given, however quick its executor was. */
const RECOMPUTE_FLOOR_MS = 60_000;

const dec = new TextDecoder();
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

export const scopeOf = (runDir: string, id: string) => `${runDir}/nodes/${id}`;

function path(s: TreeState, n: TreeNode): TreeNode[] {
  const out: TreeNode[] = [];
  for (let at: TreeNode | undefined = n; at; at = at.parent ? s.nodes[at.parent] : undefined) out.unshift(at);
  return out;
}

/**
 * Writes a node's artifact into `dir` (emptied first): its parent's, as recorded, with its own step and
 * settings — the scope of its executor, or a private copy for the merge gate.
 */
export function materialize(dir: string, s: TreeState, n: TreeNode): string {
  try {
    Deno.removeSync(dir, { recursive: true });
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  return writeArtifact(dir, s, n);
}

function writeArtifact(scope: string, s: TreeState, n: TreeNode): string {
  Deno.mkdirSync(`${scope}/steps`, { recursive: true });
  // The content hashes of the steps the library wrote (checked by writing them again): the harness runs an
  // artifact made of these alone beside its encoders, and anything else in a fresh worker per fit.
  const library: string[] = [];
  // The starting artifact's own steps (`--start <artifact.json>`): the user's code, never the library's.
  for (const step of s.config.start?.steps ?? []) {
    Deno.writeTextFileSync(`${scope}/${step.path}`, step.source);
  }
  for (const at of path(s, n)) {
    const step = at.hypothesis?.step;
    if (!step) continue;
    Deno.writeTextFileSync(`${scope}/${step.path}`, step.source);
    if (libraryWrote(s, at.hypothesis!)) library.push(sha256(step.source));
  }
  const manifest = { format: ARTIFACT_FORMAT, steps: n.artifact.steps, model: n.artifact.model, library };
  Deno.writeTextFileSync(`${scope}/artifact.json`, JSON.stringify(manifest, null, 2) + "\n");
  return scope;
}

/** Content hash of the artifact files as they are on disk now (artifact.json and its steps). */
export function artifactHash(scope: string, steps: readonly string[]): string {
  const parts = ["artifact.json", ...steps].map((p) => {
    const r = readRegular(`${scope}/${p}`, 4 << 20);
    return `${p}\u0000${r.ok ? sha256(dec.decode(r.bytes)) : `unreadable: ${r.error}`}`;
  });
  return sha256(parts.join("\n"));
}

function readClaim(
  scope: string,
  node: string,
): { claim: ExecResult["claim"]; error: string | null; fitMs: number } {
  const r = readRegular(`${scope}/results.json`, 1 << 20);
  const refused = (problem: string) => ({ claim: { score: null, problem }, error: null, fitMs: 0 });
  if (!r.ok) return refused(`results.json ${r.error}`);
  const p = parseBounded(r.bytes, { maxBytes: 1 << 20, maxDepth: 32 });
  if (!p.ok) return refused(p.error);
  const o = p.value as Record<string, unknown> | null;
  if (typeof o !== "object" || o === null || Array.isArray(o)) {
    return refused("results.json is not an object");
  }
  if (typeof o.error === "string") return { claim: null, error: o.error.slice(0, 1000), fitMs: 0 };
  if (o.node !== node) return refused(`results.json names node ${JSON.stringify(o.node).slice(0, 80)}`);
  if (typeof o.score !== "number" || !Number.isFinite(o.score)) {
    return refused("results.json has no finite score");
  }
  const fitMs = typeof o.fit_ms === "number" && Number.isFinite(o.fit_ms) ? o.fit_ms : 0;
  return { claim: { score: o.score, problem: null }, error: null, fitMs };
}

function observedBest(lines: Record<string, unknown>[], metric: string, sign: 1 | -1): number | null {
  let best: number | null = null;
  for (const l of lines) {
    const v = l[metric];
    if (typeof v === "number" && Number.isFinite(v) && (best === null || sign * (v - best) > 0)) best = v;
  }
  return best;
}

/** Runs the executor of node `id` and, when it claims a score, Arrow's recomputation. */
export async function runExecutor(w: ExecutorWorld, s: TreeState, id: string): Promise<ExecRun> {
  const n = s.nodes[id]!;
  const scope = materialize(scopeOf(w.runDir, id), s, n);
  const label = `${id}.${n.attempt}`;
  const base = unobserved(id, n.attempt, null);
  const before = artifactHash(scope, n.artifact.steps);
  const logDir = `${w.runDir}/logs`;
  const watch = {
    observeMs: s.config.observeMs,
    wallMs: s.config.wallMs,
    journal: w.journal,
    signal: w.signal,
    logDir,
  };
  const auditDir = `${w.runDir}/.arrow/audit/${label}`;
  Deno.mkdirSync(auditDir, { recursive: true });
  // The executor starts first; then the recomputation, as a standby waiting on stdin: its start-up (and
  // the cost of spawning it) overlaps the executor, and it reads the artifact only once told to go (after
  // the executor ended and its claim was checked). Whatever happens, it is told to go or cancelled below,
  // never left waiting.
  // The command (its sandbox layout built: ~15 ms under bubblewrap) only when no warm slot runs the job.
  const cmd = () => childCommand(w.sandbox, "execute", id, scope, `${auditDir}/execute.jsonl`);
  const metrics = `${scope}/metrics.jsonl`;
  const slots = w.slots ?? null;
  const slotJob = { node: id, scope, observeMs: s.config.observeMs, signal: w.signal };
  const executing = w.slurm
    ? runJobChild(w.slurm, cmd(), { ...watch, label, metrics, run: basename(w.runDir), attempt: n.attempt })
    : slots
    ? slots.run({ ...slotJob, mode: "execute", label, wallMs: s.config.wallMs })
    : runChild(cmd(), { ...watch, label, metrics });
  let go: (line: string | null) => void = () => {};
  // The recomputation does the executor's work again: it may take a few times as long, not a wall budget.
  const activeLimit = { ms: s.config.wallMs };
  const nonce = crypto.randomUUID();
  // With slots, the recomputation runs on a warm recomputation slot once asked; without, a standby child.
  const standby: Promise<ChildOutcome> | null = slots ? null : runChild(
    childCommand(w.sandbox, "recompute", id, scope, `${auditDir}/recompute.jsonl`),
    {
      ...watch,
      label: `${label}.recompute`,
      stdin: new Promise<string | null>((r) => (go = r)),
      activeLimit,
      progress: true,
    },
  );
  const cancel = async () => {
    go(null);
    if (standby) await standby;
  };
  const out = await executing;
  // The lanes its layouts left read-only, for the node's record (its executor's; its recomputation's below).
  const lanes = new RefusalLog((abs) => inside(abs, w.runDir) ? abs.slice(w.runDir.length + 1) : abs);
  lanes.add(id, n.attempt, "worker", out.refusing);
  const noteLanes = () => {
    const refused = lanes.lanes(id);
    if (refused.length) result.refused = refused;
  };
  const sign = s.config.direction === "maximize" ? 1 : -1;
  const result: ExecResult = {
    ...base,
    exit: out.exit,
    signal: out.signal,
    stderr_tail: out.stderrTail,
    hung: out.hung,
    over_budget: out.overBudget,
    escapes: out.escapes,
    observed_best: observedBest(out.lines, s.config.metric, sign),
  };
  let childMs = out.wallMs, fitMs = 0;
  const { claim, error, fitMs: claimedFitMs } = readClaim(scope, id);
  fitMs += claimedFitMs;
  if (out.exit === 3 && !out.hung && !out.overBudget) {
    result.lesson = error ?? out.stderrTail.at(-1) ?? "its code failed without a message";
  }
  if (out.exit === 0) {
    result.claim = claim;
    result.artifact_changed = artifactHash(scope, n.artifact.steps) !== before;
  }
  const accepted = out.exit === 0 && !out.escapes.length && claim?.score != null && !result.artifact_changed;
  if (!accepted || w.signal?.aborted) {
    await cancel();
    noteLanes();
    return { result, childMs, fitMs };
  }
  activeLimit.ms = Math.min(s.config.wallMs, Math.max(RECOMPUTE_FLOOR_MS, 3 * out.wallMs));
  let rec: ChildOutcome, signedBy: string = nonce;
  if (standby) {
    go(nonce);
    rec = await standby;
  } else {
    rec = await slots!.run({
      ...slotJob,
      mode: "recompute",
      label: `${label}.recompute`,
      wallMs: activeLimit.ms,
    });
    signedBy = rec.nonce ?? "";
  }
  childMs += rec.activeMs;
  lanes.add(id, n.attempt, "acceptance", rec.refusing);
  noteLanes();
  const { task } = w.data;
  const line = signedLine(rec.stdout, signedBy);
  const folds = task.splits.folds.map((f) => f.valid);
  const scored = line.ok ? scoreFolds(line.text, task.target, folds, task.metric) : line;
  if (line.ok) fitMs += Number(/"fit_ms":\s*([0-9.eE+-]+)/.exec(line.text.slice(-200))?.[1] ?? 0) || 0;
  if (rec.escapes.length) result.escapes = rec.escapes;
  else if (rec.exit !== 0 || !scored.ok) {
    const problem = rec.hung
      ? `the recomputation went silent for ${
        Math.round(rec.hung.silent_ms / 1000)
      } s after ${rec.hung.step} ` +
        `progress line(s)`
      : rec.overBudget
      ? `the recomputation ran past ${rec.overBudget.limit_ms / 1000} s (three times the executor's time)`
      : !scored.ok
      ? scored.problem
      : `the recomputation exited with ${rec.exit ?? rec.signal}`;
    result.recomputed = { problem, exit: rec.exit, stderr_tail: rec.stderrTail, hung: rec.hung };
  } else {
    result.recomputed = { folds: scored.value.scores };
    if (scored.value.importance) result.recomputed.importance = scored.value.importance;
    // The fold predictions just scored, kept (private to the coordinator) for ensembles of evaluated nodes,
    // and paired row by row with the start's (how confirmable the node is: confirm.ts).
    if (line.ok) {
      keepOof(w.runDir, id, line.text, scored.value.preds);
      const oof = id === s.order[0] ? null : readOof(w.runDir, id, task.target, folds.map((f) => f.length));
      if (oof) Object.assign(result.recomputed, rowComparisons(w.runDir, s, w.data, id, oof));
    }
  }
  return { result, childMs, fitMs };
}
