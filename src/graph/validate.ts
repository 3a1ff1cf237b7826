/**
 * Semantic checks a schema cannot express: unique ids, edges to known nodes, scopes that stay inside the
 * run and never overlap, no control characters in anything that becomes a path, argv or environment, lap
 * budgets within the law, reactive nodes that can wake, and the like. Every check is near-linear in the
 * plan's size, so a generated plan of 100,000 nodes validates in time proportional to its length.
 *
 * @module
 */
import { ACCEPT_MAX_LAPS } from "../thresholds.ts";
import { controlCharIn, type Path, type Pos, quote } from "./check.ts";
import { DEFAULT_SLOTS, type PlanFile, type PlanNodeFile } from "./types.ts";

export interface Finding {
  pos: Pos;
  message: string;
}

export const BUILTIN_ACCEPTANCE = ["@manifest", "@claim"] as const;

/** Longest scope accepted: the run directory and the scope's files must still fit within PATH_MAX. */
export const MAX_SCOPE_LENGTH = 255;

/** An environment variable name every shell and every exec accepts. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

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

  checkScopes(nodes, pos, err);
  checkControlCharacters(nodes, pos, keyPos, err);

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
        `unknown built-in acceptance ${quote(head)} (built in: ${BUILTIN_ACCEPTANCE.join(", ")})`,
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

  // Who is fed by a stream, grown by a can_spawn node, or can grow a spawn_only one: one pass over edges.
  const streamed = new Set<string>();
  const growable = new Set<string>();
  const grows = new Set<string>();
  for (const e of edges) {
    if (e.kind === "stream") streamed.add(e.to);
    if (byId.get(e.from)?.can_spawn) growable.add(e.to);
    if (byId.get(e.to)?.spawn_only) grows.add(e.from);
  }
  nodes.forEach((n, i) => {
    if (n.kind === "reactive" && !streamed.has(n.id)) {
      err(
        pos(["nodes", i, "kind"]),
        `reactive node "${n.id}" has no stream edge into it, so it would never wake`,
      );
    }
    if (n.spawn_only && !growable.has(n.id)) {
      err(
        keyPos(["nodes", i, "spawn_only"]),
        `spawn_only node "${n.id}" has no edge from a can_spawn node to grow it`,
      );
    }
    if (n.can_spawn && !grows.has(n.id)) {
      warnings.push({
        pos: keyPos(["nodes", i, "can_spawn"]),
        message: `can_spawn node "${n.id}" has no edge to a spawn_only node, so it can grow nothing`,
      });
    }
  });
  return { errors, warnings };
}

type Report = (p: Pos, message: string) => void;

interface Claimed {
  scope: string;
  id: string;
  i: number;
}

/**
 * Scopes stay inside nodes/, are short enough to be paths, and never coincide or nest. Each scope is
 * checked against the earlier ones through maps of scopes and of their parent directories, so the cost
 * is linear in the plan (times the depth of a scope), with the same findings, in the same order, as
 * comparing every pair.
 */
function checkScopes(nodes: readonly Partial<PlanNodeFile>[], pos: (p: Path) => Pos, err: Report): void {
  const exact = new Map<string, Claimed[]>();
  /** Every proper parent directory of an earlier scope, with the scopes under it. */
  const under = new Map<string, Claimed[]>();
  const add = (map: Map<string, Claimed[]>, k: string, c: Claimed) => {
    const list = map.get(k);
    if (list) list.push(c);
    else map.set(k, [c]);
  };
  nodes.forEach((n, i) => {
    const raw = n.scope ?? n.id;
    if (typeof raw !== "string" || typeof n.id !== "string") return;
    const where = n.scope !== undefined ? pos(["nodes", i, "scope"]) : pos(["nodes", i, "id"]);
    const bad = controlCharIn(raw);
    if (bad) return err(where, `scope ${quote(raw)} of node "${n.id}" contains a control character (${bad})`);
    if (raw.length > MAX_SCOPE_LENGTH) {
      return err(
        where,
        `scope of node "${n.id}" is ${raw.length} characters long (at most ${MAX_SCOPE_LENGTH})`,
      );
    }
    const scope = resolveScope(raw);
    if (scope === undefined) {
      const why = raw.startsWith("/") || /^[A-Za-z]:/.test(raw)
        ? "must be relative to the run's nodes/ directory, not absolute"
        : "escapes the run's nodes/ directory";
      return err(where, `scope ${quote(raw)} of node "${n.id}" ${why}`);
    }
    const parents: string[] = [];
    for (let at = scope.indexOf("/"); at >= 0; at = scope.indexOf("/", at + 1)) {
      parents.push(scope.slice(0, at));
    }
    const clashes = [
      ...(exact.get(scope) ?? []),
      ...(under.get(scope) ?? []),
      ...parents.flatMap((p) => exact.get(p) ?? []),
    ].sort((a, b) => a.i - b.i);
    for (const other of clashes) {
      if (other.scope === scope) {
        err(where, `nodes "${other.id}" and "${n.id}" share scope "${scope}"`);
      } else {
        const [inner, outer] = scope.startsWith(other.scope + "/") ? [n, other] : [other, n];
        err(where, `scopes of "${inner.id}" and "${outer.id}" nest ("${scope}" and "${other.scope}")`);
      }
    }
    const me = { scope, id: n.id, i };
    add(exact, scope, me);
    for (const p of parents) add(under, p, me);
  });
}

/** Ids, argv, acceptance commands, environment and names become paths and exec arguments: no controls. */
function checkControlCharacters(
  nodes: readonly Partial<PlanNodeFile>[],
  pos: (p: Path) => Pos,
  keyPos: (p: Path) => Pos,
  err: Report,
): void {
  const check = (value: unknown, path: Path, what: string, text = false) => {
    if (typeof value !== "string") return;
    const bad = controlCharIn(value, text);
    if (bad) err(pos(path), `${what} ${quote(value)} contains a control character (${bad})`);
  };
  nodes.forEach((n, i) => {
    const at = ["nodes", i] as const;
    check(n.id, [...at, "id"], "node id");
    n.acceptance?.forEach((a, k) => check(a, [...at, "acceptance", k], `acceptance argument of "${n.id}"`));
    const w = n.worker;
    if (w?.type === "command") {
      // A worker whose argv failed the schema has none here.
      w.argv?.forEach((a, k) => check(a, [...at, "worker", "argv", k], `argv of "${n.id}"`, true));
      for (const [name, value] of Object.entries(w.env ?? {})) {
        if (!ENV_NAME.test(name)) {
          err(
            keyPos([...at, "worker", "env", name]),
            `environment variable name ${quote(name)} of "${n.id}" must match ${ENV_NAME.source}`,
          );
        }
        check(
          value,
          [...at, "worker", "env", name],
          `environment variable ${quote(name)} of "${n.id}"`,
          true,
        );
      }
    } else if (w?.type === "builtin") {
      check(w.name, [...at, "worker", "name"], `built-in worker name of "${n.id}"`);
      for (const [name, value] of Object.entries(w.args ?? {})) {
        check(name, [...at, "worker", "args", name], `argument name of "${n.id}"`);
        check(value, [...at, "worker", "args", name], `argument ${quote(name)} of "${n.id}"`);
      }
    } else if (w?.type === "agent") {
      check(w.model, [...at, "worker", "model"], `model name of "${n.id}"`);
    }
  });
}
