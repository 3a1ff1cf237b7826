/**
 * What the real trainer does on this attempt: the plan's arguments, then the scenario's worker-side faults
 * turned into real behaviour (nothing here fakes a number the overwatch reads):
 *
 * - `trainer_profile`: `stages` and `ckpt_every` are taken as they are; shape `rise_plateau` makes the
 *   learning rate decay by a factor (1 − 1/tau) per stage (tau default 6), so the model climbs and then stalls
 *   below the baseline; shape `flat` trains with learning rate 0; `freeze_at` makes the trainer hang for good
 *   after that stage, on every attempt.
 * - `manifest_override`: the fields go into results.json as written; `drop_noisy: f` also makes the trainer
 *   drop the fraction f of rows a linear fit explains worst, re-split and train on what is left.
 * - `out_of_scope_write`: at stage `at_tick` the trainer tries to write `path` under the run's nodes/.
 * - `false_claim`: the trainer claims its R² on the training rows instead of dev (`claims` is not used on the
 *   real path: the leak is the false claim).
 * - `superseding_answer`: training stops after stage `at_stage`.
 *
 * @module
 */
import { faultsOf, type WorkerConfig } from "../lib/config.ts";

export interface TrainSettings {
  stages: number;
  depth: number;
  learningRate: number;
  /** Per-stage factor applied to the learning rate (1 = constant). */
  lrDecay: number;
  ckptEvery: number;
  /** Minimum wall time per stage, so a short run can be watched the way a long one is. */
  stageMs: number;
  hangAfter: number | null;
  escape: { path: string; atStage: number } | null;
  dropNoisy: number | null;
  claimOn: "dev" | "train";
}

const num = (v: unknown, fallback: number) => (typeof v === "number" && Number.isFinite(v) ? v : fallback);

export function trainSettings(cfg: WorkerConfig): TrainSettings {
  const a = cfg.args;
  const profile = faultsOf(cfg, "trainer_profile", true).at(-1)?.profile as
    | Record<string, unknown>
    | undefined;
  const escape = faultsOf(cfg, "out_of_scope_write")[0];
  const drop = faultsOf(cfg, "manifest_override", true)
    .map((f) => (f.set as Record<string, unknown>).drop_noisy)
    .filter((v) => typeof v === "number").at(-1) as number | undefined;
  const early = faultsOf(cfg, "superseding_answer", true).at(-1)?.at_stage as number | undefined;
  let learningRate = num(a.learning_rate, 0.1);
  let lrDecay = num(a.lr_decay, 1);
  if (profile?.shape === "rise_plateau") lrDecay = 1 - 1 / num(profile.tau, 6);
  if (profile?.shape === "flat") learningRate = 0;
  const stages = Math.trunc(num(profile?.stages, num(a.stages, 60)));
  return {
    stages: early !== undefined ? Math.min(stages, early) : stages,
    depth: Math.trunc(num(a.depth, 3)),
    learningRate,
    lrDecay,
    ckptEvery: Math.trunc(num(profile?.ckpt_every, num(a.ckpt_every, 6))),
    stageMs: num(a.stage_ms, 0),
    hangAfter: typeof profile?.freeze_at === "number" ? profile.freeze_at : null,
    escape: escape ? { path: String(escape.path), atStage: num(escape.at_tick, 1) } : null,
    dropNoisy: drop ?? null,
    claimOn: faultsOf(cfg, "false_claim", true).length ? "train" : "dev",
  };
}
