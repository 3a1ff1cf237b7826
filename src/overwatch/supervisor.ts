/**
 * The supervisor: the only code that changes a node's status or appends an incident. Everything else
 * observes and calls in here. Every intervention, from the cheapest bounce to the final fuse, leaves an
 * incident with evidence a person can check without rerunning anything.
 *
 * @module
 */
import type { IncidentType, NodeId } from "../graph/types.ts";
import type { Deviation } from "../gates/comparability.ts";
import { tupleOf } from "../gates/comparability.ts";
import type { Ladder, Manifest, Status } from "../model/state.ts";
import { EMPTY_FP, TERMINAL } from "../model/state.ts";
import { downstream, lapBudget, nodeOf, parents } from "../model/topology.ts";
import type { Tx } from "../model/tx.ts";
import { ACCEPT_EPS, HUNG_MAX_RESTARTS, improves } from "../thresholds.ts";
import { bestCheckpoint } from "./detectors.ts";
import { RUNG } from "./ladder.ts";
import { judge } from "./verdict.ts";

function setStatus(tx: Tx, id: NodeId, to: Status, cause: IncidentType | null): void {
  const from = tx.state.nodes[id]!.status;
  if (from === "running" && to !== "running") tx.act({ a: "stop", node: id });
  if (from !== to) tx.emit({ e: "status", node: id, from, to });
  if (tx.state.nodes[id]!.cause !== cause) tx.emit({ e: "note", node: id, set: { cause } });
}

function raise(
  tx: Tx,
  type: IncidentType,
  node: NodeId,
  evidence: Record<string, unknown>,
  ladder: Ladder = RUNG[type],
  laps?: number,
): void {
  const ns = tx.state.nodes[node]!;
  tx.emit({
    e: "incident",
    incident: { tick: tx.tick, type, node, ladder, evidence, laps: laps ?? ns.lap, tokens: ns.tokens },
  });
}

/** Blocks every non-terminal node downstream of `id`; returns the ids blocked. */
function blockDownstream(tx: Tx, id: NodeId, cause: IncidentType): NodeId[] {
  const hit = downstream(tx.state, id).filter((n) => {
    const st = tx.state.nodes[n]!.status;
    return !TERMINAL.has(st) || st === "verified";
  });
  for (const n of hit) setStatus(tx, n, "blocked", cause);
  return hit;
}

/** Admits a ready node: a fresh start clears its scope; a start with `resume` continues a checkpoint. */
export function admit(tx: Tx, id: NodeId, history: { from: NodeId; step: number; file: string }[]): void {
  const ns = tx.state.nodes[id]!;
  const node = nodeOf(tx.state.plan, id);
  const resume = ns.resume;
  const attempt = ns.attempt + 1;
  const base = {
    attempt,
    started: tx.tick,
    frozen: 0,
    stalled: 0,
    finishing: false,
    manifest: null,
    resume: null,
    from: resume,
  };
  if (resume === null) {
    tx.emit({
      e: "note",
      node: id,
      set: {
        ...base,
        fp: EMPTY_FP,
        trail: [EMPTY_FP],
        step: 0,
        best: null,
        bestStep: 0,
        ckpts: [],
        flat: 0,
        inbox: node.kind === "reactive" ? history : [],
        delivered: [],
        killAtCkpt: null,
      },
    });
  } else {
    const step = ns.ckpts.find((c) => c.file === resume)?.step ?? 0;
    tx.emit({
      e: "note",
      node: id,
      set: { ...base, value: null, ckpts: ns.ckpts.filter((c) => c.step <= step) },
    });
  }
  setStatus(tx, id, "running", null);
  tx.act({ a: "start", node: id, attempt, fresh: resume === null, resume });
}

/** A claim passed its gates: the node's result becomes knowledge. */
export function verify(tx: Tx, id: NodeId, manifest: Manifest): void {
  setStatus(tx, id, "verified", null);
  tx.emit({ e: "note", node: id, set: { manifest, finishing: false, killAtCkpt: null } });
  tx.act({ a: "snapshot", node: id });
  const role = nodeOf(tx.state.plan, id).role;
  const hasHarness = tx.state.plan.nodes.some((n) => n.role === "harness");
  const tuple = tupleOf(manifest);
  if (tuple && (role === "harness" || (role === "baseline" && !hasHarness))) {
    tx.emit({ e: "freeze", tuple, by: id });
  }
}

export interface Claim {
  argv: string[];
  code: number;
  stdout: string;
  stderr: string;
  workerExit: number | null;
  manifest: Manifest | null;
  problem?: string;
}

const clip = (s: string, n = 2000) => (s.length > n ? s.slice(0, n) + `… (${s.length - n} more chars)` : s);

/** Acceptance refused a claim: bounce within the lap budget while each retry improves, else fuse. */
export function falseCompletion(tx: Tx, id: NodeId, claim: Claim): void {
  const ns = tx.state.nodes[id]!;
  const { laps, via } = lapBudget(tx.state.plan, id);
  const lapNo = ns.lap + 1;
  const score = claim.manifest?.score ?? null;
  const dir = tx.state.plan.protocol.direction;
  const improved = ns.claim === null || (score !== null && improves(ns.claim, score, ACCEPT_EPS, dir));
  const exhausted = lapNo >= laps || !improved;
  const evidence = {
    acceptance: claim.argv,
    exit_code: claim.code,
    stdout: clip(claim.stdout),
    stderr: clip(claim.stderr, 600),
    worker_exit: claim.workerExit,
    claimed_score: score,
    previous_claim: ns.claim,
    required_gain: ACCEPT_EPS,
    lap: lapNo,
    lap_budget: laps,
    via,
    ...(claim.problem ? { problem: claim.problem } : {}),
    ...(exhausted
      ? { reason: lapNo >= laps ? "lap budget exhausted" : "retry did not improve by ACCEPT_EPS" }
      : {}),
  };
  raise(tx, "FALSE_COMPLETION", id, evidence, exhausted ? "fuse" : "bounce", lapNo);
  if (exhausted) return setStatus(tx, id, "killed", "FALSE_COMPLETION");
  const last = ns.ckpts.at(-1);
  const long = nodeOf(tx.state.plan, id).kind === "long";
  tx.emit({
    e: "note",
    node: id,
    set: { lap: lapNo, claim: score, resume: long && last ? last.file : null },
  });
  setStatus(tx, id, "pending", "FALSE_COMPLETION");
}

/** A manifest broke comparability: blame the deviator, withhold it and everything built on it. */
export function comparabilityBlock(tx: Tx, dev: Deviation, at: NodeId): void {
  const frozen = tx.state.frozen!;
  const baseline = tx.state.plan.nodes.find((n) => n.role === "baseline")?.id ?? null;
  const blocked = downstream(tx.state, dev.node).filter((n) =>
    !TERMINAL.has(tx.state.nodes[n]!.status) ||
    tx.state.nodes[n]!.status === "verified"
  );
  raise(tx, "COMPARABILITY_BLOCK", dev.node, {
    field: dev.field,
    expected: dev.expected,
    got: dev.got,
    frozen_by: frozen.by,
    gate: at === dev.node ? `${dev.node} results.json` : `artifact edge ${dev.node}→${at}`,
    manifest: `nodes/${nodeOf(tx.state.plan, dev.node).scope}/results.json`,
    baseline_stands: baseline,
    blocked: [dev.node, ...blocked],
  });
  setStatus(tx, dev.node, "blocked", "COMPARABILITY_BLOCK");
  blockDownstream(tx, dev.node, "COMPARABILITY_BLOCK");
}

export interface Escape {
  path: string;
  op: string;
  stopped_by: string | null;
  reverted: boolean;
}

/** A node wrote (or tried to write) outside its lane: blame it and stop it; the write was blocked or reverted. */
export function scopeViolation(
  tx: Tx,
  writer: NodeId | null,
  victim: NodeId | null,
  escapes: Escape[],
): void {
  const node = writer ?? victim!;
  const blocked = writer ? [writer, ...downstream(tx.state, writer)] : [];
  raise(tx, "SCOPE_VIOLATION", node, {
    writer: writer ?? "unattributed",
    scope: writer ? `nodes/${nodeOf(tx.state.plan, writer).scope}` : null,
    paths: escapes.map((e) => e.path),
    attempts: escapes,
    blocked: blocked.filter((n) =>
      !TERMINAL.has(tx.state.nodes[n]!.status) || tx.state.nodes[n]!.status === "verified"
    ),
  });
  if (!writer) return;
  setStatus(tx, writer, "blocked", "SCOPE_VIOLATION");
  blockDownstream(tx, writer, "SCOPE_VIOLATION");
}

/** A long node's (step, best_dev) froze: restart once from the best checkpoint, then fuse. */
export function hung(tx: Tx, id: NodeId): void {
  const ns = tx.state.nodes[id]!;
  const best = bestCheckpoint(ns.ckpts, tx.state.plan.protocol.direction);
  const evidence = {
    step: ns.step,
    best_dev: ns.best,
    stalled_ticks: ns.stalled,
    restarts: ns.restarts,
    max_restarts: HUNG_MAX_RESTARTS,
    best_ckpt: best?.file ?? null,
  };
  if (ns.restarts < HUNG_MAX_RESTARTS) {
    const resume = best?.file ?? null;
    raise(tx, "HUNG_RESTART", id, { ...evidence, resume_from: resume }, "bounce");
    const step = best?.step ?? 0;
    const attempt = ns.attempt + 1;
    tx.emit({
      e: "note",
      node: id,
      set: {
        restarts: ns.restarts + 1,
        attempt,
        started: tx.tick,
        stalled: 0,
        value: null,
        ckpts: ns.ckpts.filter((c) => c.step <= step),
        from: resume,
        cause: "HUNG_RESTART",
      },
    });
    tx.act({ a: "stop", node: id });
    tx.act({ a: "start", node: id, attempt, fresh: resume === null, resume });
    return;
  }
  raise(tx, "HUNG_RESTART", id, { ...evidence, recurrence: true }, "fuse");
  setStatus(tx, id, "killed", "HUNG_RESTART");
}

/** Plateau below target at a checkpoint boundary: kill, keep the best checkpoint, free the gpu. */
export function plateau(tx: Tx, id: NodeId, evidence: Record<string, unknown>): void {
  const ns = tx.state.nodes[id]!;
  const best = bestCheckpoint(ns.ckpts, tx.state.plan.protocol.direction);
  raise(tx, "PLATEAU_TRIP", id, {
    ...evidence,
    best_dev: ns.best,
    best_ckpt: best?.file ?? null,
    kept: best?.file ?? null,
  });
  setStatus(tx, id, "plateaued", "PLATEAU_TRIP");
}

/** The question is answered: a still-training branch is killed at its checkpoint boundary. */
export function supersede(tx: Tx, id: NodeId, evidence: Record<string, unknown>): void {
  raise(tx, "SUPERSEDED_KILL", id, evidence);
  setStatus(tx, id, "superseded", "SUPERSEDED_KILL");
}

/** A bounce for a fast node (oscillation, frozen scope), fused once the lap budget is spent. */
export function bounce(
  tx: Tx,
  id: NodeId,
  type: "OSCILLATION_TRIP" | "BUDGET_TRIP",
  evidence: Record<string, unknown>,
) {
  const ns = tx.state.nodes[id]!;
  const { laps, via } = lapBudget(tx.state.plan, id);
  const lapNo = ns.lap + 1;
  const exhausted = lapNo >= laps;
  raise(
    tx,
    type,
    id,
    { ...evidence, lap: lapNo, lap_budget: laps, via },
    exhausted ? "fuse" : "bounce",
    lapNo,
  );
  if (exhausted) return setStatus(tx, id, "killed", type);
  tx.emit({ e: "note", node: id, set: { lap: lapNo } });
  setStatus(tx, id, type === "OSCILLATION_TRIP" ? "oscillating" : "stuck", type);
}

/** A hard budget (ticks or tokens) ran out: fuse. */
export function overBudget(tx: Tx, id: NodeId, evidence: Record<string, unknown>): void {
  raise(tx, "BUDGET_TRIP", id, evidence, "fuse");
  setStatus(tx, id, "killed", "BUDGET_TRIP");
}

/** Reopen (stale cascade) or taint (sparing role train): demote the closure so it re-runs. */
export function invalidate(tx: Tx, id: NodeId, kind: "reopen" | "taint"): void {
  const spare = kind === "taint";
  const closure = downstream(tx.state, id, (n) => !(spare && n.role === "train"));
  const spared = spare
    ? downstream(tx.state, id).filter((n) => nodeOf(tx.state.plan, n).role === "train")
    : [];
  const hit = [id, ...closure].filter((n) => tx.state.nodes[n]!.status !== "pending");
  const before = Object.fromEntries(hit.map((n) => [n, tx.state.nodes[n]!.status]));
  if (kind === "reopen") raise(tx, "STALE_CASCADE", id, { reopened: id, demoted: hit, was: before });
  else raise(tx, "TAINT_INVALIDATION", id, { tainted: id, invalidated: hit, spared, was: before });
  for (const n of hit) {
    tx.emit({
      e: "note",
      node: n,
      set: { lap: 0, claim: null, restarts: 0, resume: null, killAtCkpt: null, finishing: false },
    });
    setStatus(tx, n, "stale", kind === "reopen" ? "STALE_CASCADE" : "TAINT_INVALIDATION");
  }
}

/** Graph surgery: grow a spawn_only node on the live graph, funded by what `cause` freed. */
export function spawn(tx: Tx, id: NodeId, cause: { type: IncidentType; node: NodeId }): void {
  const by = parents(tx.state, id, "artifact").find((p) => nodeOf(tx.state.plan, p).can_spawn) ??
    tx.state.plan.edges.find((e) => e.to === id && nodeOf(tx.state.plan, e.from).can_spawn)?.from ?? null;
  tx.emit({ e: "spawn", node: id, by: by ?? "" });
  const node = nodeOf(tx.state.plan, id);
  raise(tx, cause.type, id, {
    spawned: id,
    by,
    role: node.role,
    kind: node.kind,
    cause: cause.type,
    cause_node: cause.node,
    funded_by: node.kind === "long" ? "gpu" : "cpu",
  }, "graph_surgery");
}

/** The run quiesced: record the verdict. */
export function conclude(tx: Tx): void {
  const j = judge(tx.state);
  tx.emit({ e: "verdict", verdict: j.verdict, detail: j.detail });
}
