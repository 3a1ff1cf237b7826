/**
 * Semantic checks a schema cannot express: unique ids, edges to known nodes, scopes that stay inside the
 * run and never overlap, lap budgets within the law, reactive nodes that can wake, and the like.
 *
 * @module
 */
import { ACCEPT_MAX_LAPS } from "../thresholds.ts";
import type { Path, Pos } from "./check.ts";
import { DEFAULT_SLOTS, type PlanFile } from "./types.ts";

export interface Finding {
  pos: Pos;
  message: string;
}

export const BUILTIN_ACCEPTANCE = ["@manifest", "@claim"] as const;

/** Normalizes a scope path; returns undefined when it is absolute or leaves the nodes/ directory. */
export function resolveScope(scope: string): string | undefined {
  if (scope.startsWith("/") || /^[A-Za-z]:[\\/]/.test(scope) || scope.startsWith("\\")) return undefined;
  const parts: string[] = [];
  for (const part of scope.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (!parts.length) return undefined;
      parts.pop();
    } else parts.push(part);
  }
  return parts.length ? parts.join("/") : undefined;
}

export function validatePlan(
  plan: Partial<PlanFile>,
  pos: (p: Path) => Pos,
  keyPos: (p: Path) => Pos,
): { errors: Finding[]; warnings: Finding[] } {
  const errors: Finding[] = [];
  const warnings: Finding[] = [];
  const err = (p: Pos, message: string) => errors.push({ pos: p, message });
  const nodes = plan.nodes ?? [];
  const edges = plan.edges ?? [];
  const slots = { ...DEFAULT_SLOTS, ...plan.resources?.slots };

  const firstAt = new Map<string, number>();
  nodes.forEach((n, i) => {
    if (typeof n.id !== "string") return;
    const prev = firstAt.get(n.id);
    if (prev !== undefined) {
      const p = pos(["nodes", prev, "id"]);
      err(pos(["nodes", i, "id"]), `duplicate node id "${n.id}" (first defined at ${p.line}:${p.col})`);
    } else firstAt.set(n.id, i);
  });
  const byId = new Map(nodes.filter((n) => typeof n.id === "string").map((n) => [n.id, n]));

  const scopes: { scope: string; id: string; i: number }[] = [];
  nodes.forEach((n, i) => {
    const raw = n.scope ?? n.id;
    if (typeof raw !== "string") return;
    const where = n.scope !== undefined ? pos(["nodes", i, "scope"]) : pos(["nodes", i, "id"]);
    const scope = resolveScope(raw);
    if (scope === undefined) {
      const why = raw.startsWith("/") || /^[A-Za-z]:/.test(raw)
        ? "must be relative to the run's nodes/ directory, not absolute"
        : "escapes the run's nodes/ directory";
      err(where, `scope "${raw}" of node "${n.id}" ${why}`);
      return;
    }
    for (const other of scopes) {
      if (other.scope === scope) {
        err(where, `nodes "${other.id}" and "${n.id}" share scope "${scope}"`);
      } else if (scope.startsWith(other.scope + "/") || other.scope.startsWith(scope + "/")) {
        const [inner, outer] = scope.startsWith(other.scope + "/") ? [n, other] : [other, n];
        err(where, `scopes of "${inner.id}" and "${outer.id}" nest ("${scope}" and "${other.scope}")`);
      }
    }
    scopes.push({ scope, id: n.id, i });
  });

  nodes.forEach((n, i) => {
    if (n.kind === "long" && slots.gpu === 0) {
      err(pos(["nodes", i, "kind"]), `long node "${n.id}" needs a gpu slot, but resources.slots.gpu is 0`);
    }
    if (n.kind === "fast" && slots.cpu === 0) {
      err(pos(["nodes", i, "kind"]), `fast node "${n.id}" needs a cpu slot, but resources.slots.cpu is 0`);
    }
    if (n.spawn_on && !n.spawn_only) {
      err(keyPos(["nodes", i, "spawn_on"]), `spawn_on only applies to spawn_only nodes ("${n.id}" is not)`);
    }
    const head = n.acceptance?.[0];
    if (head?.startsWith("@") && !(BUILTIN_ACCEPTANCE as readonly string[]).includes(head)) {
      err(
        pos(["nodes", i, "acceptance", 0]),
        `unknown built-in acceptance "${head}" (built in: ${BUILTIN_ACCEPTANCE.join(", ")})`,
      );
    }
  });
  const baselines = nodes.map((n, i) => [n, i] as const).filter(([n]) => n.role === "baseline");
  for (const [, i] of baselines.slice(1)) {
    err(
      pos(["nodes", i, "role"]),
      `only one node may have role baseline ("${baselines[0]![0].id}" already does)`,
    );
  }

  const seenEdges = new Map<string, number>();
  edges.forEach((e, i) => {
    for (const end of ["from", "to"] as const) {
      if (typeof e[end] === "string" && !byId.has(e[end])) {
        err(pos(["edges", i, end]), `edge ${end} unknown node "${e[end]}"`);
      }
    }
    const sig = `${e.from}\u0000${e.to}\u0000${e.kind}`;
    const dup = seenEdges.get(sig);
    if (dup !== undefined) {
      const p = pos(["edges", dup]);
      err(pos(["edges", i]), `duplicate ${e.kind} edge ${e.from} → ${e.to} (first at ${p.line}:${p.col})`);
    } else seenEdges.set(sig, i);
    if (e.laps !== undefined && e.kind !== "back_edge") {
      err(
        keyPos(["edges", i, "laps"]),
        `laps only applies to back_edge, not ${e.kind} edge ${e.from} → ${e.to}`,
      );
    }
    if (e.kind === "back_edge" && e.laps !== undefined && e.laps > ACCEPT_MAX_LAPS) {
      err(
        pos(["edges", i, "laps"]),
        `lap budget ${e.laps} of back_edge ${e.from} → ${e.to} exceeds ACCEPT_MAX_LAPS (${ACCEPT_MAX_LAPS})`,
      );
    }
    if (e.kind === "back_edge" && e.from === e.to) {
      err(pos(["edges", i]), `back_edge ${e.from} → ${e.to} loops on one node; a retry needs no edge`);
    }
    const from = byId.get(e.from);
    const to = byId.get(e.to);
    if (e.kind === "stream" && from && from.kind !== "long") {
      err(
        pos(["edges", i, "from"]),
        `stream edge ${e.from} → ${e.to}: streams carry checkpoints, so "${e.from}" must be long`,
      );
    }
    if (e.kind === "stream" && to && to.kind !== "reactive") {
      err(
        pos(["edges", i, "to"]),
        `stream edge ${e.from} → ${e.to}: only reactive nodes consume streams, "${e.to}" is ${to.kind}`,
      );
    }
  });

  nodes.forEach((n, i) => {
    if (n.kind === "reactive" && !edges.some((e) => e.kind === "stream" && e.to === n.id)) {
      err(
        pos(["nodes", i, "kind"]),
        `reactive node "${n.id}" has no stream edge into it, so it would never wake`,
      );
    }
    if (n.spawn_only) {
      const spawners = edges.filter((e) => e.to === n.id && byId.get(e.from)?.can_spawn);
      if (!spawners.length) {
        err(
          keyPos(["nodes", i, "spawn_only"]),
          `spawn_only node "${n.id}" has no edge from a can_spawn node to grow it`,
        );
      }
    }
    if (n.can_spawn && !edges.some((e) => e.from === n.id && byId.get(e.to)?.spawn_only)) {
      warnings.push({
        pos: keyPos(["nodes", i, "can_spawn"]),
        message: `can_spawn node "${n.id}" has no edge to a spawn_only node, so it can grow nothing`,
      });
    }
  });
  return { errors, warnings };
}
