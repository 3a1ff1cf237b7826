/**
 * The first rung of successive halving: many candidates measured cheaply before a few are measured in full.
 * Each candidate's artifact (its parent's plus its one change) is copied into the run's `screen/` and fit on
 * the first dev folds only (harness `screen` mode, `screenFolds`: one or two folds, a fifth or two of a full
 * cross-validation) in a sandboxed, read-only child, and its predictions of those folds' validation rows are
 * compared row by row with the parent's kept out-of-fold predictions of the same rows (the gate's per-row
 * loss). Dev rows only, like every measurement before the gate.
 *
 * A screen decides nothing about a candidate's honesty: only Arrow's own library code is screened (what an
 * LLM wrote goes straight to a supervised executor), and a candidate whose screen failed, hung or reached
 * outside its lane is promoted, so that the executor's supervised path — its overwatch, its incidents — is
 * where it is judged. The screen's figures are kept in the record (`proposed.screened`).
 *
 * @module
 */
import { newNode } from "../grow.ts";
import { boundedZ, screenEffects, towardFamily } from "../ideate/insight.ts";
import { libraryWrote } from "../ideate/library.ts";
import { pairedLoss, roundedGain } from "../gate/row_loss.ts";
import { pooled, readOof } from "../ensemble.ts";
import { endBar, promise } from "../confirm.ts";
import { type ChildOutcome, runChild, signedLine } from "./child.ts";
import { type ExecutorWorld, materialize } from "./executor.ts";
import { screenFolds } from "./harness/inputs.ts";
import { covered } from "./harness/pool.ts";
import { readFolds } from "./predictions.ts";
import { childCommand } from "./sandbox.ts";
import { inPool } from "../in_pool.ts";
import type { Hypothesis, ScreenedCandidate, TreeState } from "../types.ts";

/** How many candidates a cycle screens per hypothesis it measures in full (successive halving's factor). */
export const SCREEN_FACTOR = 3;

export interface ScreenRun {
  /** The candidates to measure in full, best first: at most `n`. */
  promoted: Hypothesis[];
  /** Every screened candidate with its figures (promoted or not), in the order they were proposed. */
  screened: ScreenedCandidate[];
  /** How long at least one screen's child was running (the union of their spans): not the loop's time. */
  childMs: number;
  fitMs: number;
}

/** Whether `h` may be screened: Arrow's own code (or a change of model settings alone), no ensemble. */
export function screenable(s: TreeState, h: Hypothesis): boolean {
  if (h.members || h.source !== "library") return false;
  return h.step === null || libraryWrote(s, h);
}

/**
 * Screens `candidates` (ranked, best first) for children of `parent` and keeps the `n` whose rows beat the
 * parent's most surely (by the z of their mean per-row loss gain, the statistic the gate will ask of them;
 * with insights, shrunk toward their family's screens so far as far as those agree, insight.ts
 * `towardFamily`); those that could not be screened go first, then the
 * rest by that z. Without the parent's kept predictions nothing is screened: the first `n` are kept as ranked.
 */
export async function screen(
  w: ExecutorWorld,
  s: TreeState,
  parentId: string,
  candidates: readonly Hypothesis[],
  n: number,
): Promise<ScreenRun> {
  const parent = s.nodes[parentId]!;
  const { task } = w.data;
  const k = screenFolds(task.splits.folds.map((f) => f.valid.length));
  const folds = task.splits.folds.slice(0, k);
  const full = readOof(w.runDir, parentId, task.target, task.splits.folds.map((f) => f.valid.length));
  const eligible = candidates.filter((h) => screenable(s, h));
  if (!full || eligible.length <= n) {
    return { promoted: candidates.slice(0, n), screened: [], childMs: 0, fitMs: 0 };
  }
  const ref = pooled(full.slice(0, k));
  const y = Float64Array.from(folds.flatMap((f) => Array.from(f.valid, (r) => task.target.y[r]!)));
  const sizes = folds.map((f) => f.valid.length);
  const spans: [number, number][] = [];
  let fitMs = 0;
  const one = async (h: Hypothesis, i: number): Promise<ScreenedCandidate> => {
    const base: ScreenedCandidate = {
      key: h.key,
      family: h.family,
      columns: h.columns,
      text: h.text,
      gain: null,
      problem: null,
      promoted: false,
    };
    if (!screenable(s, h)) return { ...base, problem: "not screened: its code is not the library's" };
    const label = `screen${s.cycle}.${i}`;
    const scope = materialize(`${w.runDir}/screen/${i}`, s, newNode(label, parent, s.cycle, h));
    const t0 = performance.now();
    const out = await runScreen(w, s, label, scope);
    spans.push([t0, performance.now()]);
    const line = out.nonce ? signedLine(out.stdout, out.nonce) : { ok: false as const, problem: "" };
    const why = out.escapes.length
      ? `it reached outside its lane (${out.escapes[0]!.op} ${out.escapes[0]!.path})`
      : out.hung
      ? "it went silent"
      : out.overBudget
      ? "it ran past its wall budget"
      : out.exit !== 0
      ? `it exited with ${out.exit ?? out.signal}`
      : !line.ok
      ? line.problem
      : null;
    if (why || !line.ok) return { ...base, problem: `not screened: ${why}` };
    fitMs += Number(/"fit_ms":\s*([0-9.eE+-]+)/.exec(line.text.slice(-200))?.[1] ?? 0) || 0;
    const read = readFolds(line.text, task.target, sizes);
    if (!read.ok) return { ...base, problem: `not screened: ${read.problem}` };
    return { ...base, gain: roundedGain(pairedLoss(s.config.metric, y, pooled(read.value.preds), ref)) };
  };
  const screened = await inPool(candidates, s.config.executors, one);
  const order = promotionOrder(screened, s.config.insights ? screenEffects(s.nodes).family : null, {
    heldout: s.dataset.heldout,
    bar: endBar(s),
  });
  const keep = new Set(order.slice(0, n).map((x) => x.i));
  return {
    promoted: order.slice(0, n).map((x) => candidates[x.i]!),
    screened: screened.map((c, i) => ({ ...c, promoted: keep.has(i) })),
    childMs: covered(spans),
    fitMs,
  };
}

/**
 * The screened candidates in the order they are promoted: the unscreened first (the executors judge them),
 * then, with `confirm` (the held-out rows and the gate's bar), by what each screen promises at the gate
 * (confirm.ts `promise`: its per-row gain times the chance that held-out rows confirm it, its z scaled from
 * the screen's rows to the held-out part's) — a sure sliver and a large gain resting on a few rows both give
 * way to a large gain the gate can see — and among those promising nothing, by the z itself. The z is, with
 * `prior` (insights on), shrunk toward what the screens measured of the candidate's family before, as far as
 * those screens agree (`towardFamily`: a lucky screen of a family that keeps losing is trusted less, one of a
 * family whose screens differ keeps most of its own); ties keep the ideator's order.
 */
export function promotionOrder(
  screened: readonly ScreenedCandidate[],
  prior: ReadonlyMap<string, { shrunk: number; spread: number }> | null,
  confirm: { heldout: number; bar: number } | null = null,
): { c: ScreenedCandidate; i: number }[] {
  const zOf = (c: ScreenedCandidate) => {
    if (!c.gain) return Infinity;
    const z = boundedZ(c.gain.z);
    return prior ? towardFamily(z, prior.get(c.family)) : z;
  };
  const promised = (c: ScreenedCandidate) =>
    !c.gain ? Infinity : !confirm ? 0 : promise(c.gain.gain, zOf(c), c.gain.n, confirm.heldout, confirm.bar);
  const keyed = screened.map((c, i) => ({ c, i, p: promised(c), z: zOf(c) }));
  return keyed.sort((a, b) => b.p - a.p || b.z - a.z || a.i - b.i).map(({ c, i }) => ({ c, i }));
}

/** One screen job: on a warm screening slot when there are slots, else a fresh child given its nonce. */
async function runScreen(
  w: ExecutorWorld,
  s: TreeState,
  label: string,
  scope: string,
): Promise<ChildOutcome> {
  const watch = {
    observeMs: s.config.observeMs,
    wallMs: s.config.wallMs,
    journal: w.journal,
    signal: w.signal,
    logDir: `${w.runDir}/logs`,
  };
  if (w.slots) {
    return await w.slots.run({ mode: "screen", node: label, scope, label, ...watch });
  }
  const auditDir = `${w.runDir}/.arrow/audit/${label}`;
  Deno.mkdirSync(auditDir, { recursive: true });
  const nonce = crypto.randomUUID();
  const cmd = childCommand(w.sandbox, "screen", label, scope, `${auditDir}/screen.jsonl`);
  const out = await runChild(cmd, { ...watch, label, stdin: nonce, progress: true });
  return { ...out, nonce };
}
