/**
 * Expands every sweep of a resolved plan into sibling long nodes by graph surgery on the plan itself: one node
 * per configuration (id `<sweep>_c01` …, scope `<scope>_c01` …), each with the sweep node's edges, its
 * arguments merged into the worker's (built-in: `args`; command: `ARROW_ARG_<NAME>` variables) and a mock
 * training curve derived from them; the sweep node itself leaves the plan and is described in `plan.sweeps`.
 * Pure: the same plan always expands to the same bytes.
 *
 * @module
 */
import { topoOrder } from "./normalize.ts";
import { configsOf, configSuffix, DEFAULT_ETA, stagesOf, type SweepGroup } from "./sweep.ts";
import type { Plan, PlanEdge, PlanNode, TrainerProfile, WorkerSpec } from "./types.ts";

type Args = Record<string, string | number | boolean>;

/**
 * The mock trainer's defaults (src/workers/mock/trainer.ts `normalizeProfile`; a test holds the two equal), so
 * a derived curve starts from what the template node would have played.
 */
export const MOCK_DEFAULTS = {
  stages: 60,
  start: { rise_cross: 0.3, rise_plateau: 0.3, flat: 0.4, curve: 0.3 },
  peak: { rise_cross: 0.78, rise_plateau: 0.55, flat: 0.4, curve: 0.5 },
  tau: { rise_cross: 15, rise_plateau: 8, flat: 15, curve: 15 },
} as const;

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** A stable number in [0, 1) from a text (FNV-1a, 32 bits): the per-configuration jitter. */
function unit(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h / 4294967296;
}

/**
 * The simulated curve of one configuration, read like a boosted model's: the learning rate sets the speed
 * (tau scales with √(reference_rate / rate)) and, above the reference, costs 0.15 · ln(rate / reference) of the
 * ceiling (a fast learner leads early and ends lower, as boosting with too large a step does); depth moves
 * the ceiling (+0.02 per level, −0.01 per level squared, from the reference depth); every configuration gets a
 * jitter of ±0.005 from a hash of its arguments, so arguments the model does not know still tell configurations
 * apart. The reference is the sweep node's own worker arguments (else rate 0.1, depth 3). Shapes `flat` and
 * `curve` play as written.
 */
export function mockProfile(template: PlanNode, args: Args): TrainerProfile {
  const base: TrainerProfile = template.mock.profile ?? { shape: "rise_cross" };
  const w = template.worker?.type === "builtin" ? template.worker.args ?? {} : {};
  const stages = num(args.stages) ?? base.stages ?? num(w.stages) ?? base.values?.length ??
    MOCK_DEFAULTS.stages;
  const out: TrainerProfile = { ...base, stages: Math.max(1, Math.round(stages)) };
  const every = num(args.ckpt_every);
  if (every !== undefined && every >= 1) out.ckpt_every = Math.round(every);
  if (base.shape === "flat" || base.shape === "curve") return out;
  const refRate = num(w.learning_rate) ?? 0.1;
  const refDepth = num(w.depth) ?? 3;
  const rate = num(args.learning_rate) ?? refRate;
  const depth = num(args.depth) ?? refDepth;
  const tau0 = base.tau ?? MOCK_DEFAULTS.tau[base.shape];
  const peak0 = base.peak ?? MOCK_DEFAULTS.peak[base.shape];
  const start = base.start ?? MOCK_DEFAULTS.start[base.shape];
  const dd = depth - refDepth;
  const jitter = (unit(JSON.stringify(Object.entries(args).sort())) - 0.5) * 0.01;
  const overshoot = rate > refRate ? 0.15 * Math.log(rate / refRate) : 0;
  const peak = peak0 + 0.02 * dd - 0.01 * dd * dd - overshoot + jitter;
  const tau = rate > 0 ? tau0 * Math.sqrt(refRate / rate) : tau0 * 10;
  return {
    ...out,
    start,
    peak: round6(Math.max(start + 0.01, peak)),
    tau: round6(Math.min(tau0 * 10, Math.max(0.5, tau))),
  };
}

function workerFor(w: WorkerSpec | undefined, args: Args): WorkerSpec | undefined {
  if (w?.type === "builtin") return { ...w, args: { ...w.args, ...args } };
  if (w?.type === "command") {
    const env = Object.fromEntries(
      Object.entries(args).map(([k, v]) => [`ARROW_ARG_${k.toUpperCase()}`, String(v)]),
    );
    return { ...w, env: { ...w.env, ...env } };
  }
  return w;
}

const label = (args: Args) => Object.entries(args).map(([k, v]) => `${k}=${v}`).join(", ");

/** The plan with every sweep expanded (the plan itself when it has none). */
export function expandSweeps(plan: Plan): Plan {
  const templates = plan.nodes.filter((n) => n.sweep);
  if (!templates.length) return plan;
  let nodes: PlanNode[] = [];
  let edges: PlanEdge[] = [...plan.edges];
  const groups: SweepGroup[] = [...(plan.sweeps ?? [])];
  for (const n of plan.nodes) {
    if (!n.sweep) {
      nodes.push(n);
      continue;
    }
    const configs = configsOf(n.sweep, plan.protocol.seed);
    const { sweep, ...template } = n;
    const members = configs.map((args, k) => {
      const suffix = configSuffix(k, configs.length);
      const worker = workerFor(n.worker, args);
      const node: PlanNode = {
        ...template,
        id: n.id + suffix,
        title: `${n.title} (${label(args)})`,
        scope: n.scope + suffix,
        mock: { ...n.mock, profile: mockProfile(n, args) },
        ...(worker ? { worker } : {}),
      };
      return node;
    });
    nodes = nodes.concat(members);
    const rankers = edges.filter((e) => e.from === n.id && e.kind === "stream").map((e) => e.to).sort();
    edges = edges.flatMap((e) => {
      if (e.to === n.id) return members.map((m) => ({ ...e, to: m.id }));
      if (e.from === n.id) return members.map((m) => ({ ...e, from: m.id }));
      return [e];
    });
    const h = sweep.halving;
    groups.push({
      node: n.id,
      title: n.title,
      configs: members.map((m, k) => ({ id: m.id, args: configs[k]!, stages: stagesOf(m, configs[k]!) })),
      rankers,
      halving: h ? { eta: h.eta ?? DEFAULT_ETA, rungs: [...h.rungs], min_keep: h.min_keep ?? 1 } : null,
    });
  }
  const order = topoOrder(nodes.map((n) => n.id), edges);
  return { ...plan, nodes, edges, order, sweeps: groups };
}
