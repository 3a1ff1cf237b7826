/**
 * The supervisor: the only code that changes a node's status or appends an incident. Everything else
 * observes and calls in here. Every intervention, from the cheapest bounce to the final fuse, leaves an
 * incident with evidence a person can check without rerunning anything.
 *
 * @module
 */
import type { IncidentType, NodeId } from "../graph/types.ts";
import type { Deviation } from "../gates/comparability.ts";
import type {
  BudgetEvidence,
  EscapeAttempt,
  EvidenceMap,
  FrozenEvidence,
  OscillationEvidence,
  PlateauEvidence,
  SpinEvidence,
  StaleReason,
  SupersededEvidence,
  SurgeryEvidence,
} from "../model/evidence.ts";
import type { Ladder, Manifest, Status, Tuple } from "../model/state.ts";
import { EMPTY_FP, TERMINAL } from "../model/state.ts";
import { downstream, lapBudget, nodeOf, parents } from "../model/topology.ts";
import type { Tx } from "../model/tx.ts";
import { ACCEPT_EPS, ACCEPT_MAX_LAPS, HUNG_MAX_RESTARTS, improves } from "../thresholds.ts";
import { type Claim, claimEvidence } from "./claim_evidence.ts";
import { bestCheckpoint } from "./detectors.ts";
import { RUNG } from "./ladder.ts";
import { incidentOf } from "./incident.ts";
import { judge } from "./verdict.ts";

export type { Claim } from "./claim_evidence.ts";

function setStatus(tx: Tx, id: NodeId, to: Status, cause: IncidentType | null): void {
  const from = tx.state.nodes[id]!.status;
  if (from === "running" && to !== "running") tx.act({ a: "stop", node: id });
  if (from !== to) tx.emit({ e: "status", node: id, from, to });
  if (tx.state.nodes[id]!.cause !== cause) tx.emit({ e: "note", node: id, set: { cause } });
}

function raise<T extends IncidentType>(
  tx: Tx,
  type: T,
  node: NodeId,
  evidence: EvidenceMap[T] | SurgeryEvidence,
  ladder: Ladder = RUNG[type],
  laps?: number,
): void {
  const ns = tx.state.nodes[node]!;
  tx.emit({
    e: "incident",
    incident: incidentOf(
      { tick: tx.tick, node, laps: laps ?? ns.lap, tokens: ns.tokens },
      type,
      evidence,
      ladder,
    ),
  });
}

/** Nodes downstream of `id` whose results are live (not yet fused): what a block withholds with it. */
function liveDownstream(tx: Tx, id: NodeId): NodeId[] {
  return downstream(tx.state, id).filter((n) => {
    const st = tx.state.nodes[n]!.status;
    return !TERMINAL.has(st) || st === "verified";
  });
}

function blockWithDownstream(tx: Tx, id: NodeId, cause: IncidentType): void {
  const hit = liveDownstream(tx, id);
  setStatus(tx, id, "blocked", cause);
  for (const n of hit) setStatus(tx, n, "blocked", cause);
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
    tx.emit({ e: "rewind", node: id, step: -1 });
    tx.emit({
      e: "note",
      node: id,
      set: {
        ...base,
        fp: EMPTY_FP,
        trail: [EMPTY_FP],
        step: 0,
        value: null,
        best: null,
        bestStep: 0,
        seen: { step: 0, best: null },
        flat: 0,
        inbox: node.kind === "reactive" ? history : [],
        killAtCkpt: null,
      },
    });
  } else {
    const at = ns.ckpts.find((c) => c.file === resume);
    const step = at?.step ?? 0;
    tx.emit({ e: "rewind", node: id, step });
    tx.emit({
      e: "note",
      node: id,
      set: { ...base, value: null, step, seen: { step, best: ns.best } },
    });
  }
  setStatus(tx, id, "running", null);
  tx.act({ a: "start", node: id, attempt, fresh: resume === null, resume });
}

/** A claim passed its gates: the node's result becomes knowledge. Returns the tuple it froze, if any. */
export function verify(tx: Tx, id: NodeId, manifest: Manifest, tuple: Tuple | null): void {
  setStatus(tx, id, "verified", null);
  tx.emit({ e: "note", node: id, set: { manifest, finishing: false, killAtCkpt: null, claim: null } });
  tx.act({ a: "snapshot", node: id });
  if (tuple) tx.emit({ e: "freeze", tuple, by: id });
}

/** A claim was refused (or the worker died first): bounce within the lap budget while retries improve, else fuse. */
export function falseCompletion(tx: Tx, id: NodeId, claim: Claim): void {
  const ns = tx.state.nodes[id]!;
  const { laps, via } = lapBudget(tx.state.plan, id);
  const lapNo = ns.lap + 1;
  const dir = tx.state.plan.protocol.direction;
  // Each retry must improve on the last refused claim by ACCEPT_EPS. A crash retries within the lap budget
  // (it claimed nothing to compare); a claim with no score after a refusal is no improvement.
  const improved = ns.lap === 0 || claim.crash !== undefined ||
    (claim.score !== null && (ns.claim === null || improves(ns.claim, claim.score, ACCEPT_EPS, dir)));
  const exhausted = lapNo >= laps || !improved;
  const evidence = claimEvidence(claim, { previous: ns.claim, lap: lapNo, laps, via, exhausted });
  raise(tx, "FALSE_COMPLETION", id, evidence, exhausted ? "fuse" : "bounce", lapNo);
  if (exhausted) return setStatus(tx, id, "killed", "FALSE_COMPLETION");
  const last = ns.ckpts.at(-1);
  const long = nodeOf(tx.state.plan, id).kind === "long";
  tx.emit({
    e: "note",
    node: id,
    set: { lap: lapNo, claim: claim.score, resume: long && last ? last.file : null },
  });
  setStatus(tx, id, "pending", "FALSE_COMPLETION");
}

/** A manifest broke comparability: blame the deviator, withhold it and everything built on it. */
export function comparabilityBlock(tx: Tx, dev: Deviation, at: NodeId): void {
  const frozen = tx.state.frozen!;
  const baseline = tx.state.plan.nodes.find((n) => n.role === "baseline")?.id ?? null;
  raise(tx, "COMPARABILITY_BLOCK", dev.node, {
    field: dev.field,
    expected: dev.expected,
    got: dev.got,
    frozen_by: frozen.by,
    gate: at === dev.node ? `${dev.node} results.json` : `artifact edge ${dev.node}→${at}`,
    manifest: `nodes/${nodeOf(tx.state.plan, dev.node).scope}/results.json`,
    baseline_stands: baseline,
    blocked: [dev.node, ...liveDownstream(tx, dev.node)],
  });
  blockWithDownstream(tx, dev.node, "COMPARABILITY_BLOCK");
}

/** A node wrote (or tried to write) outside its lane: blame and stop it; the write was refused or reverted. */
export function scopeViolation(
  tx: Tx,
  writer: NodeId | null,
  victim: NodeId | null,
  attempts: EscapeAttempt[],
  opts: { unattributed?: string; basis?: string; irreparable?: string[]; times?: number } = {},
): void {
  const node = writer ?? victim!;
  // A victim whose scope keeps being overwritten beyond repair is blocked, not re-run once more.
  const fuseVictim = !writer && victim !== null && (opts.times ?? 0) >= ACCEPT_MAX_LAPS;
  const blocked = writer ?? (fuseVictim ? victim : null);
  raise(tx, "SCOPE_VIOLATION", node, {
    writer: writer ?? "unattributed",
    scope: writer ? `nodes/${nodeOf(tx.state.plan, writer).scope}` : null,
    paths: attempts.map((e) => e.path),
    attempts,
    blocked: blocked ? [blocked, ...liveDownstream(tx, blocked)] : [],
    ...(opts.unattributed ? { unattributed: opts.unattributed } : {}),
    ...(opts.basis ? { basis: opts.basis } : {}),
    ...(opts.irreparable?.length ? { irreparable: opts.irreparable } : {}),
    ...(opts.times ? { times: opts.times } : {}),
  }, fuseVictim ? "fuse" : RUNG.SCOPE_VIOLATION);
  if (blocked) blockWithDownstream(tx, blocked, "SCOPE_VIOLATION");
}

/** A long node's (step, best_dev) froze: restart once from the best checkpoint, then fuse. */
export function hung(tx: Tx, id: NodeId, observeEvery: string | undefined): void {
  const ns = tx.state.nodes[id]!;
  const best = bestCheckpoint(ns.ckpts, tx.state.plan.protocol.direction);
  const evidence = {
    step: ns.step,
    best_dev: ns.best,
    stalled_ticks: ns.stalled,
    ...(observeEvery ? { observe_every: observeEvery } : {}),
    ...(ns.value === null ? { silent_from_start: true as const } : {}),
    restarts: ns.restarts,
    max_restarts: HUNG_MAX_RESTARTS,
    best_ckpt: best?.file ?? null,
  };
  if (ns.restarts < HUNG_MAX_RESTARTS) {
    const resume = best?.file ?? null;
    raise(tx, "HUNG_RESTART", id, { ...evidence, resume_from: resume }, "bounce");
    const step = best?.step ?? 0;
    const attempt = ns.attempt + 1;
    tx.emit({ e: "rewind", node: id, step: resume === null ? -1 : step });
    tx.emit({
      e: "note",
      node: id,
      set: {
        restarts: ns.restarts + 1,
        attempt,
        started: tx.tick,
        stalled: 0,
        value: null,
        step: resume === null ? 0 : step,
        seen: { step: resume === null ? 0 : step, best: resume === null ? null : ns.best },
        from: resume,
        cause: "HUNG_RESTART",
        ...(resume === null ? { best: null, bestStep: 0, flat: 0 } : {}),
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
export function plateau(
  tx: Tx,
  id: NodeId,
  at: Pick<PlateauEvidence, "ckpt" | "step" | "previous_ckpt_best" | "target" | "flat_ckpts">,
): void {
  const ns = tx.state.nodes[id]!;
  const best = bestCheckpoint(ns.ckpts, tx.state.plan.protocol.direction);
  raise(tx, "PLATEAU_TRIP", id, {
    ...at,
    freed: "gpu",
    best_dev: ns.best,
    best_ckpt: best?.file ?? null,
    kept: best?.file ?? null,
  });
  setStatus(tx, id, "plateaued", "PLATEAU_TRIP");
}

/** The question is answered: a training branch is killed at its checkpoint boundary, or never started. */
export function supersede(tx: Tx, id: NodeId, evidence: SupersededEvidence): void {
  raise(tx, "SUPERSEDED_KILL", id, evidence);
  setStatus(tx, id, "superseded", "SUPERSEDED_KILL");
}

/**
 * A bounce for a fast node (oscillation, frozen scope — seen in ticks, or in an agent's own steps), fused
 * once the lap budget is spent.
 */
export function bounce(
  tx: Tx,
  id: NodeId,
  trip:
    | { type: "OSCILLATION_TRIP"; evidence: Omit<OscillationEvidence, "lap" | "lap_budget" | "via"> }
    | { type: "BUDGET_TRIP"; evidence: Omit<FrozenEvidence, "lap" | "lap_budget" | "via"> }
    | { type: "BUDGET_TRIP"; evidence: Omit<SpinEvidence, "lap" | "lap_budget" | "via"> },
): void {
  const ns = tx.state.nodes[id]!;
  const { laps, via } = lapBudget(tx.state.plan, id);
  const lapNo = ns.lap + 1;
  const exhausted = lapNo >= laps;
  const ladder = exhausted ? "fuse" : "bounce";
  const meter = { lap: lapNo, lap_budget: laps, via };
  if (trip.type === "OSCILLATION_TRIP") {
    raise(tx, trip.type, id, { ...trip.evidence, ...meter }, ladder, lapNo);
  } else raise(tx, trip.type, id, { ...trip.evidence, ...meter }, ladder, lapNo);
  if (exhausted) return setStatus(tx, id, "killed", trip.type);
  tx.emit({ e: "note", node: id, set: { lap: lapNo } });
  setStatus(tx, id, trip.type === "OSCILLATION_TRIP" ? "oscillating" : "stuck", trip.type);
}

/** A hard budget (ticks, wall time or tokens) ran out: fuse. */
export function overBudget(tx: Tx, id: NodeId, evidence: BudgetEvidence): void {
  raise(tx, "BUDGET_TRIP", id, evidence, "fuse");
  setStatus(tx, id, "killed", "BUDGET_TRIP");
}

/**
 * Reopen (stale cascade) or taint (sparing role train): demote `id` and its closure so they re-run. Long
 * nodes named in `resumeAt` restart from that checkpoint instead of from scratch (spared training).
 */
export function invalidate(
  tx: Tx,
  id: NodeId,
  kind: "reopen" | "taint",
  why: { reason: StaleReason; note?: string; changed?: string[]; also?: NodeId[] },
): void {
  const spare = kind === "taint";
  const closure = downstream(tx.state, id, (n) => !(spare && n.role === "train"));
  const spared = spare
    ? downstream(tx.state, id).filter((n) => nodeOf(tx.state.plan, n).role === "train")
    : [];
  const hit = [...new Set([id, ...closure, ...(why.also ?? [])])].filter((n) =>
    tx.state.nodes[n]!.status !== "pending" && tx.state.nodes[n]!.spawned
  );
  const was = Object.fromEntries(hit.map((n) => [n, tx.state.nodes[n]!.status]));
  const extra = {
    reason: why.reason,
    ...(why.note ? { note: why.note } : {}),
    ...(why.changed?.length ? { changed: why.changed } : {}),
  };
  if (kind === "reopen") raise(tx, "STALE_CASCADE", id, { reopened: id, demoted: hit, was, ...extra });
  else raise(tx, "TAINT_INVALIDATION", id, { tainted: id, invalidated: hit, spared, was, ...extra });
  for (const n of hit) demote(tx, n, kind === "reopen" ? "STALE_CASCADE" : "TAINT_INVALIDATION", false);
}

/**
 * Marks a node stale so it re-runs. Its progress and checkpoints are forgotten (a re-admitted reader must
 * never see the old attempt's files), unless `keepLast`: then it resumes from its last checkpoint.
 */
function demote(tx: Tx, n: NodeId, cause: IncidentType, keepLast: boolean): void {
  const ns = tx.state.nodes[n]!;
  const last = keepLast ? ns.ckpts.at(-1)?.file ?? null : null;
  if (!last) tx.emit({ e: "rewind", node: n, step: -1 });
  tx.emit({
    e: "note",
    node: n,
    set: {
      lap: 0,
      claim: null,
      restarts: 0,
      resume: last,
      killAtCkpt: null,
      finishing: false,
      manifest: null,
      inbox: [],
      ...(last ? {} : { step: 0, value: null, best: null, bestStep: 0, flat: 0, stalled: 0 }),
    },
  });
  setStatus(tx, n, "stale", cause);
}

/**
 * The tuple was frozen again with different values (the harness re-ran after a taint or reopen). Results
 * verified under the old tuple are outdated, not deviant: they re-run under the new one, training from its
 * last checkpoint (its compute is spared); one that never matched either tuple is a deviator and is blocked.
 */
export function refreeze(
  tx: Tx,
  by: NodeId,
  outdated: NodeId[],
  deviators: Deviation[],
): void {
  for (const d of deviators) {
    if (tx.state.nodes[d.node]!.status === "verified") comparabilityBlock(tx, d, d.node);
  }
  const live = outdated.filter((n) => tx.state.nodes[n]!.status === "verified");
  if (!live.length) return;
  const closure = [...new Set(live.flatMap((n) => [n, ...downstream(tx.state, n)]))].filter((n) =>
    tx.state.nodes[n]!.status !== "pending" && tx.state.nodes[n]!.spawned && n !== by
  );
  const was = Object.fromEntries(closure.map((n) => [n, tx.state.nodes[n]!.status]));
  raise(tx, "STALE_CASCADE", by, { reopened: by, demoted: closure, was, reason: "protocol re-frozen" });
  for (const n of closure) demote(tx, n, "STALE_CASCADE", nodeOf(tx.state.plan, n).kind === "long");
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
