/**
 * The simulated trainer of mock long nodes: a deterministic dev curve per profile, one metrics line per
 * stage, a checkpoint file every few stages, resumable from any checkpoint.
 *
 * @module
 */
import type { WorkerConfig } from "../lib/config.ts";
import { faultsOf } from "../lib/config.ts";
import { fired } from "../lib/fired.ts";
import type { ScopeWriter } from "../lib/files.ts";
import { readJson } from "../lib/files.ts";
import type { TickResult } from "../lib/protocol.ts";
import { claimed, disturbance, manifestBase, strayWrite } from "./roles.ts";

interface Profile {
  shape: "rise_cross" | "rise_plateau" | "flat" | "curve";
  stages: number;
  stages_per_tick: number;
  ckpt_every: number;
  start: number;
  peak: number;
  tau: number;
  freeze_at?: number;
  values?: number[];
}

const PEAKS = { rise_cross: 0.78, rise_plateau: 0.55, flat: 0.40, curve: 0.5 } as const;

export function profileOf(cfg: Pick<WorkerConfig, "faults" | "attempt" | "mock">): Profile {
  const override = faultsOf(cfg as WorkerConfig, "trainer_profile", true).at(-1)?.profile as
    | Record<string, unknown>
    | undefined;
  return normalizeProfile({ ...cfg.mock.profile, ...override });
}

/** A profile with every default filled in. */
export function normalizeProfile(raw: Record<string, unknown>): Profile {
  const p = raw as Partial<Profile>;
  const shape = p.shape ?? "rise_cross";
  return {
    shape,
    ...(p.values ? { values: p.values } : {}),
    stages: p.stages ?? p.values?.length ?? 60,
    stages_per_tick: p.stages_per_tick ?? 3,
    ckpt_every: p.ckpt_every ?? 6,
    start: p.start ?? (shape === "flat" ? PEAKS.flat : 0.3),
    peak: p.peak ?? PEAKS[shape],
    tau: p.tau ?? (shape === "rise_plateau" ? 8 : 15),
    ...(p.freeze_at !== undefined ? { freeze_at: p.freeze_at } : {}),
  };
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

export function devAt(p: Profile, stage: number): number {
  if (p.shape === "curve" && p.values?.length) return round6(p.values[Math.min(stage, p.values.length) - 1]!);
  return round6(p.peak - (p.peak - p.start) * Math.exp(-stage / p.tau));
}

interface Ckpt {
  step: number;
  dev: number;
  best: number;
  best_step: number;
}

export function trainer(cfg: WorkerConfig, out: ScopeWriter) {
  const p = profileOf(cfg);
  const metric = cfg.protocol.metric;
  const earlyFault = faultsOf(cfg, "superseding_answer", true).at(-1);
  const early = earlyFault?.at_stage as number | undefined;
  const last = Math.min(p.stages, early ?? p.stages);
  const profiled = faultsOf(cfg, "trainer_profile", true).at(-1);
  const from = cfg.resume ? readJson<Ckpt>(cfg.resume) : undefined;
  let stage = from?.step ?? 0;
  let best = from?.best ?? -Infinity;
  let bestStep = from?.best_step ?? 0;
  let local = 0;
  const better = (
    v: number,
  ) => (cfg.protocol.direction === "maximize" ? v > best : v < best || best === -Infinity);

  const finish = async (): Promise<TickResult> => {
    const score = round6(best);
    out.json("model.json", {
      kind: "mock",
      node: cfg.node,
      score,
      step: bestStep,
      stages: stage,
      profile: p.shape,
    });
    if (earlyFault && early !== undefined && early < p.stages) fired(cfg, earlyFault, out.dry);
    out.json("results.json", {
      ...(await manifestBase(cfg, stage, out.dry)),
      score: claimed(cfg, out) ?? score,
      artifact: "model.json",
    });
    return { tokens: 0, done: true };
  };

  return async (): Promise<TickResult> => {
    local++;
    if (profiled) fired(cfg, profiled, out.dry);
    strayWrite(cfg, out, local);
    if (disturbance(cfg, out, stage) === "stall") return { tokens: 0, done: false };
    if (stage >= last) return await finish();
    if (p.freeze_at !== undefined && stage >= p.freeze_at) return { tokens: 0, done: false };
    for (let i = 0; i < p.stages_per_tick && stage < last; i++) {
      if (p.freeze_at !== undefined && stage >= p.freeze_at) break;
      stage++;
      const dev = devAt(p, stage);
      if (better(dev)) [best, bestStep] = [dev, stage];
      const loss = round6(1 - dev);
      out.append("metrics.jsonl", JSON.stringify({ step: stage, [metric]: dev, train_loss: loss }) + "\n");
      if (stage % p.ckpt_every === 0 || stage === last) {
        const name = `ckpt/step_${String(stage).padStart(6, "0")}.json`;
        out.json(name, { kind: "mock", step: stage, dev, best: round6(best), best_step: bestStep });
      }
    }
    return stage >= last ? await finish() : { tokens: 0, done: false };
  };
}
