/**
 * The portfolio sweep as a plan feature: the `sweep:` key of a long node (its schema piece and types), the
 * checks a schema cannot make (each named by file:line:col), and what an expanded sweep looks like in the
 * plan the engine runs. Expansion itself is in `sweep_expand.ts`, the space in `sweep_space.ts`.
 *
 * ```yaml
 * - id: N4
 *   kind: long
 *   role: train
 *   sweep:
 *     space:
 *       learning_rate: { values: [0.05, 0.1, 0.2] }
 *       depth: { range: [1, 4] }          # integers 1..4; floats when an end is a float
 *       stages: { log_range: [20, 120, 4] } # 4 log-spaced points; without n: log-uniform draws
 *     grid: true                          # or count: 27 (seeded draws, distinct)
 *     seed: 7                             # default protocol.seed, else 0
 *     halving: { eta: 3, rungs: [6, 18, 54], min_keep: 1 }
 * ```
 *
 * A space entry is a mapping (`values`, `range` or `log_range`) rather than a bare list because the plan
 * schema language (one definition → types, checker, JSON Schema) has no untagged unions.
 *
 * @module
 */
import type { Path, Pos } from "./check.ts";
import { quote } from "./check.ts";
import { configurations, type Domain, domainOf, MAX_CONFIGS, MAX_POINTS, spaceSize } from "./sweep_space.ts";
import { s } from "./schema.ts";
import type { SweepGroup, SweepSpec } from "./sweep_types.ts";
import type { NodeId, Plan, PlanFile, PlanNodeFile } from "./types.ts";
import type { Finding } from "./validate.ts";
import { resolveScope } from "./validate.ts";

export type { SweepConfig, SweepGroup, SweepHalving, SweepParam, SweepSpec } from "./sweep_types.ts";

const paramSchema = s.obj(
  {
    values: s.arr(s.scalar(), { minItems: 1, doc: "the values to try" }),
    range: s.arr(s.num(), {
      minItems: 2,
      doc: "[low, high]: uniform (integers when both ends are), or [low, high, n]: n evenly spaced points",
    }),
    log_range: s.arr(s.num(), {
      minItems: 2,
      doc: "[low, high]: log-uniform, or [low, high, n]: n log-spaced points (integers when both ends are)",
    }),
  },
  [],
  "one worker argument: exactly one of values, range, log_range",
);

export const sweepSchema = s.obj(
  {
    space: s.record(paramSchema, { doc: "the worker arguments to vary, by name" }),
    count: s.int({ min: 1, max: MAX_CONFIGS, doc: "configurations drawn from the space (seeded, distinct)" }),
    grid: s.bool("every combination of the space (lists, integer ranges, ranges with n points)"),
    seed: s.int({ min: 0, max: 2147483647, doc: "seed of the draws (default: protocol.seed, else 0)" }),
    halving: s.obj(
      {
        eta: s.int({ min: 2, max: 64, doc: "keep the top 1/eta at each rung (default 3)" }),
        rungs: s.arr(s.int({ min: 1, max: 10_000_000 }), {
          minItems: 1,
          doc: "training steps at which configurations are ranked, increasing",
        }),
        min_keep: s.int({
          min: 1,
          max: MAX_CONFIGS,
          doc: "configurations kept at every rung at least (default 1)",
        }),
      },
      ["rungs"],
      "successive halving: losers are killed at a checkpoint boundary (SUPERSEDED_KILL)",
    ),
  },
  ["space"],
  "expand this long node into one sibling per configuration, ranked by successive halving",
);

export const DEFAULT_ETA = 3;
const ID_MAX = 32;
const ARG_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Suffix of configuration `k` (0-based) of `n`: `_c01` … (two digits at least, more when needed). */
export function configSuffix(k: number, n: number): string {
  return `_c${String(k + 1).padStart(Math.max(2, String(n).length), "0")}`;
}

/** The sweep a node belongs to as one of its configurations, if any. */
export function sweepOf(plan: Pick<Plan, "sweeps">, id: NodeId): SweepGroup | undefined {
  return plan.sweeps?.find((g) => g.configs.some((c) => c.id === id));
}

/** The domains of a spec, or the first reason one parameter has none. */
export function domainsOf(
  spec: SweepSpec,
): { domains: Record<string, Domain> } | { bad: string; reason: string } {
  const domains: Record<string, Domain> = {};
  for (const name of Object.keys(spec.space).sort()) {
    const d = domainOf(spec.space[name]!);
    if (typeof d === "string") return { bad: name, reason: d };
    domains[name] = d;
  }
  return { domains };
}

/** Configurations of a valid spec, in their fixed order. */
export function configsOf(
  spec: SweepSpec,
  planSeed: number | undefined,
): Record<string, string | number | boolean>[] {
  const r = domainsOf(spec);
  if ("bad" in r) throw new RangeError(`Cannot expand the sweep: parameter "${r.bad}": ${r.reason}`);
  return spec.grid
    ? configurations(r.domains, { grid: true })
    : configurations(r.domains, { count: spec.count ?? 1, seed: spec.seed ?? planSeed ?? 0 });
}

/** Checks every `sweep:` of a plan file; positions point at the offending key or value. */
export function validateSweeps(
  plan: Partial<PlanFile>,
  pos: (p: Path) => Pos,
  keyPos: (p: Path) => Pos,
): { errors: Finding[]; warnings: Finding[] } {
  const errors: Finding[] = [];
  const warnings: Finding[] = [];
  const nodes = plan.nodes ?? [];
  if (!nodes.some((n) => n?.sweep)) return { errors, warnings };
  const ids = new Set(nodes.map((n) => n?.id));
  const scopes = nodes.filter((n) => !n?.sweep).map((n) => resolveScope(n?.scope ?? n?.id ?? ""))
    .filter((x): x is string => !!x);
  nodes.forEach((n, i) => {
    if (!n?.sweep || typeof n.id !== "string") return;
    const at = (...p: (string | number)[]): Path => ["nodes", i, "sweep", ...p];
    const err = (p: Pos, message: string) => errors.push({ pos: p, message });
    checkNode(n, i, plan, pos, keyPos, err);
    const sw = n.sweep;
    let size = 0;
    for (const name of Object.keys(sw.space ?? {}).sort()) {
      if (!ARG_NAME.test(name)) {
        err(
          keyPos(at("space", name)),
          `sweep parameter ${quote(name)} of "${n.id}" must match ${ARG_NAME.source}`,
        );
      }
      const d = domainOf(sw.space[name]!);
      if (typeof d === "string") {
        err(keyPos(at("space", name)), `sweep parameter "${name}" of "${n.id}": ${d}`);
      } else if (sw.grid && spaceSize({ [name]: d }) === Infinity) {
        err(
          keyPos(at("space", name)),
          `sweep parameter "${name}" of "${n.id}" has no finite list of values for a grid (a float or log range ` +
            `without n, or over ${MAX_POINTS} integers): give [low, high, n]`,
        );
      }
    }
    if (!Object.keys(sw.space ?? {}).length) {
      err(pos(at("space")), `the sweep of "${n.id}" has an empty space`);
    }
    const r = domainsOf(sw);
    if (!("bad" in r)) size = spaceSize(r.domains);
    if ((sw.count === undefined) === !sw.grid) {
      err(
        keyPos(["nodes", i, "sweep"]),
        `the sweep of "${n.id}" needs exactly one of count: N or grid: true`,
      );
    } else if (sw.grid && size > MAX_CONFIGS && size !== Infinity) {
      err(keyPos(at("grid")), `the grid of "${n.id}" holds ${size} configurations (at most ${MAX_CONFIGS})`);
    } else if (sw.count !== undefined && size < sw.count) {
      err(
        pos(at("count")),
        `the space of "${n.id}" holds ${size} distinct configurations, fewer than count ${sw.count}`,
      );
    }
    if (sw.grid && sw.seed !== undefined) {
      warnings.push({ pos: keyPos(at("seed")), message: `seed of "${n.id}" has no effect on a grid` });
    }
    const total = sw.grid ? size : sw.count ?? 0;
    const sized = total > 0 && total <= MAX_CONFIGS;
    if (sized) checkNames(n, i, total, ids, scopes, pos, err);
    checkHalving(
      n,
      i,
      sized ? total : 0,
      plan,
      pos,
      keyPos,
      err,
      (p, m) => warnings.push({ pos: p, message: m }),
    );
  });
  return { errors, warnings };
}

type Report = (p: Pos, message: string) => void;

/** Only a long node that exists from the start, run by a worker that can take arguments, may sweep. */
function checkNode(
  n: Partial<PlanNodeFile>,
  i: number,
  plan: Partial<PlanFile>,
  pos: (p: Path) => Pos,
  keyPos: (p: Path) => Pos,
  err: Report,
): void {
  const here = keyPos(["nodes", i, "sweep"]);
  if (n.kind !== "long") err(here, `only a long node can sweep ("${n.id}" is ${n.kind})`);
  if (n.spawn_only) err(here, `"${n.id}" is spawn_only: a sweep expands at the start of the run`);
  if (n.worker?.type === "agent") err(here, `"${n.id}" runs an LLM agent, which takes no sweep arguments`);
  const edges = plan.edges ?? [];
  edges.forEach((e, k) => {
    if (e?.from === n.id && e.kind === "artifact") {
      err(
        pos(["edges", k]),
        `artifact edge ${n.id} → ${e.to}: the sweep's outcome is its ranker's; draw the edge from the ranker`,
      );
    }
  });
  const byId = new Map((plan.nodes ?? []).map((x) => [x?.id, x]));
  const rankers = edges.filter((e) =>
    e?.from === n.id && e.kind === "stream" && byId.get(e.to)?.kind === "reactive"
  );
  if (!rankers.length) {
    err(here, `the sweep of "${n.id}" has no ranker: add a reactive node with a stream edge from "${n.id}"`);
  }
}

/** Generated ids fit the id pattern and clash with no node; generated scopes clash with no scope. */
function checkNames(
  n: Partial<PlanNodeFile>,
  i: number,
  total: number,
  ids: Set<string | undefined>,
  scopes: string[],
  pos: (p: Path) => Pos,
  err: Report,
): void {
  const id = n.id!;
  const last = id + configSuffix(total - 1, total);
  if (last.length > ID_MAX) {
    return err(
      pos(["nodes", i, "id"]),
      `id "${id}" is too long to name its ${total} configurations ("${last}" has ${last.length} characters, at most ${ID_MAX})`,
    );
  }
  const scope = resolveScope(n.scope ?? id);
  for (let k = 0; k < total; k++) {
    const cid = id + configSuffix(k, total);
    if (ids.has(cid)) {
      return err(pos(["nodes", i, "id"]), `configuration id "${cid}" of "${id}" is taken by another node`);
    }
    if (!scope) continue;
    const cs = scope + configSuffix(k, total);
    const clash = scopes.find((o) => o === cs || o.startsWith(cs + "/") || cs.startsWith(o + "/"));
    if (clash) {
      return err(
        pos(["nodes", i, n.scope !== undefined ? "scope" : "id"]),
        `configuration scope "${cs}" of "${id}" clashes with scope "${clash}"`,
      );
    }
  }
}

function checkHalving(
  n: Partial<PlanNodeFile>,
  i: number,
  total: number,
  plan: Partial<PlanFile>,
  pos: (p: Path) => Pos,
  keyPos: (p: Path) => Pos,
  err: Report,
  warn: Report,
): void {
  const h = n.sweep?.halving;
  if (!h?.rungs) return;
  const at = (...p: (string | number)[]): Path => ["nodes", i, "sweep", "halving", ...p];
  h.rungs.forEach((r, k) => {
    if (k > 0 && r <= h.rungs[k - 1]!) {
      err(pos(at("rungs", k)), `rungs of "${n.id}" must increase: ${r} follows ${h.rungs[k - 1]}`);
    }
  });
  if (total === 0) return;
  if ((h.min_keep ?? 1) > total) {
    warn(keyPos(at("min_keep")), `min_keep ${h.min_keep} of "${n.id}" keeps all ${total} configurations`);
  }
  let longest = 0;
  try {
    const configs = configsOf(n.sweep!, plan.protocol?.seed);
    longest = Math.max(...configs.map((c) => stagesOf(n, c) ?? 0));
  } catch {
    return;
  }
  const beyond = h.rungs.findIndex((r) => r > longest);
  if (longest > 0 && beyond >= 0) {
    warn(
      pos(at("rungs", beyond)),
      `no configuration of "${n.id}" reaches rung ${
        h.rungs[beyond]
      } (the longest trains ${longest} stages): it never applies`,
    );
  }
}

/** Stages a configuration trains in all: its `stages` argument, the worker's, else the mock profile's. */
export function stagesOf(
  n: Pick<PlanNodeFile, "worker" | "mock">,
  args: Record<string, string | number | boolean>,
): number | null {
  const w = n.worker?.type === "builtin" ? n.worker.args ?? {} : {};
  const v = args.stages ?? w.stages ?? n.mock?.profile?.stages ?? n.mock?.profile?.values?.length;
  return typeof v === "number" && Number.isInteger(v) && v > 0 ? v : null;
}
