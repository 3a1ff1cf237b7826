/**
 * The real long node: a staged gradient-boosting trainer that runs free (no lock-step) and follows the file
 * protocol. Every stage appends `{"step":s,"<metric>":dev,...}` to metrics.jsonl; every `ckpt_every` stages
 * it writes ckpt/step_NNNNNN.json (the whole model so far, renamed into place so a reader never sees half a
 * file); with ARROW_RESUME_FROM it reloads a checkpoint and continues counting from its step. At the end
 * it writes model.json (the model at its best dev stage) and results.json, and exits 0: that is its claim.
 *
 * @module
 */
import { faultsOf, readConfig, type WorkerConfig } from "../lib/config.ts";
import { fired } from "../lib/fired.ts";
import { type GbdtFile, linkFrom, readKind } from "./artifact.ts";
import { type Dataset, loadDataset } from "./data.ts";
import { dropNoisy } from "./drop_noisy.ts";
import { Booster, predict } from "./gbdt.ts";
import { type DataRef, frozenData } from "./locate.ts";
import { assertR2, realManifest } from "./manifest.ts";
import { r2 } from "./score.ts";
import { type TrainSettings, trainSettings } from "./settings.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pad = (s: number) => String(s).padStart(6, "0");

function writeJsonAtomic(scope: string, rel: string, value: unknown): void {
  const tmp = `${scope}/.${rel.replaceAll("/", "_")}.tmp`;
  Deno.writeTextFileSync(tmp, JSON.stringify(value) + "\n");
  Deno.renameSync(tmp, `${scope}/${rel}`);
}

/** Stops making progress for good while staying alive: what a deadlocked data loader looks like from outside. */
async function hang(stage: number): Promise<never> {
  console.log(`stage ${stage}: waiting on a data loader that never answers`);
  for (;;) await sleep(60_000);
}

/** The run's shared state: data, model so far, best dev stage. */
interface Run {
  cfg: WorkerConfig;
  s: TrainSettings;
  ref: DataRef;
  data: Dataset;
  booster: Booster;
  step: number;
  best: number;
  bestStep: number;
}

function snapshot(run: Run, upTo: number): GbdtFile {
  const { data, booster, ref, cfg } = run;
  return {
    kind: "gbdt",
    step: upTo,
    features: data.features,
    target: data.target,
    init: booster.init,
    trees: booster.trees.slice(0, upTo),
    data: linkFrom(cfg.scope, ref),
    best: run.best,
    best_step: run.bestStep,
  };
}

async function start(cfg: WorkerConfig): Promise<Run> {
  assertR2(cfg);
  const s = trainSettings(cfg);
  const frozen = await frozenData(cfg);
  if (typeof frozen === "string") throw new Error(frozen);
  const ref = s.dropNoisy !== null ? await dropNoisy(frozen, s.dropNoisy, cfg.scope) : frozen;
  const data = loadDataset(ref.csv, ref.split);
  const resumeFrom = Deno.env.get("ARROW_RESUME_FROM") ?? cfg.resume;
  if (!resumeFrom) {
    const booster = new Booster(data.train, data.dev, s.depth);
    return { cfg, s, ref, data, booster, step: 0, best: -Infinity, bestStep: 0 };
  }
  const ck = readKind<GbdtFile>(resumeFrom, "gbdt");
  if (typeof ck === "string") throw new Error(`cannot resume: ${ck}`);
  const booster = new Booster(data.train, data.dev, s.depth, { init: ck.init, trees: ck.trees });
  console.log(`resuming from ${resumeFrom} at step ${ck.step}`);
  return {
    cfg,
    s,
    ref,
    data,
    booster,
    step: ck.step,
    best: ck.best ?? -Infinity,
    bestStep: ck.best_step ?? 0,
  };
}

function tryEscape(cfg: WorkerConfig, path: string): void {
  const f = faultsOf(cfg, "out_of_scope_write")[0];
  if (f) fired(cfg, f);
  try {
    Deno.writeTextFileSync(path.startsWith("/") ? path : `${cfg.nodes}/${path}`, `written by ${cfg.node}\n`);
  } catch {
    // A careless agent swallows the refusal; the sandbox's audit log still saw the attempt.
  }
}

/** The stall and crash faults, at a training stage: silent for `seconds` (or for good), or dead. */
async function disturbAt(cfg: WorkerConfig, stage: number): Promise<void> {
  const crash = faultsOf(cfg, "crash")[0];
  if (crash && stage >= (crash.at_step as number)) {
    fired(cfg, crash);
    console.error(`stage ${stage}: crashing as the crash fault says`);
    Deno.exit((crash.exit as number | undefined) ?? 1);
  }
  const st = faultsOf(cfg, "stall")[0];
  if (!st || stage < (st.at_step as number) || stalled.has(st)) return;
  stalled.add(st);
  fired(cfg, st);
  const seconds = st.seconds as number | undefined;
  if (seconds === undefined) await hang(stage);
  await sleep(seconds! * 1000);
}

const stalled = new Set<unknown>();

export async function main(): Promise<number> {
  const cfg = await readConfig();
  Deno.mkdirSync(`${cfg.scope}/ckpt`, { recursive: true });
  let run: Run;
  try {
    run = await start(cfg);
  } catch (e) {
    console.error(`gbdt_train: ${(e as Error).message}`);
    return 1;
  }
  const { s, data, booster } = run;
  const metric = cfg.protocol.metric;
  const line = (o: Record<string, unknown>) =>
    Deno.writeTextFileSync(`${cfg.scope}/metrics.jsonl`, JSON.stringify(o) + "\n", { append: true });
  if (run.step === 0) {
    line({ step: 0, [metric]: r2(data.dev.y, booster.fDev), train_r2: r2(data.train.y, booster.fTrain) });
  }
  // The rate of stage k is learning_rate · decay^(k−1), built by repeated products as the Python trainer does.
  let rate = s.learningRate;
  for (let k = 2; k <= run.step; k++) rate *= s.lrDecay;
  for (const kind of ["trainer_profile", "superseding_answer"]) {
    const f = faultsOf(cfg, kind, true).at(-1);
    if (f) fired(cfg, f);
  }
  for (let stage = run.step + 1; stage <= s.stages; stage++) {
    const t0 = performance.now();
    if (s.hangAfter !== null && stage > s.hangAfter) await hang(stage);
    await disturbAt(cfg, stage);
    if (s.escape && stage === s.escape.atStage) tryEscape(cfg, s.escape.path);
    if (stage > 1) rate *= s.lrDecay;
    booster.stage(rate);
    const dev = r2(data.dev.y, booster.fDev);
    if (dev > run.best) [run.best, run.bestStep] = [dev, stage];
    run.step = stage;
    line({ step: stage, [metric]: dev, train_r2: r2(data.train.y, booster.fTrain), lr: rate });
    if (stage % s.ckptEvery === 0 || stage === s.stages) {
      writeJsonAtomic(cfg.scope, `ckpt/step_${pad(stage)}.json`, snapshot(run, stage));
    }
    const left = s.stageMs - (performance.now() - t0);
    if (left > 0) await sleep(left);
  }
  const model = snapshot(run, run.bestStep);
  writeJsonAtomic(cfg.scope, "model.json", model);
  const part = data[s.claimOn];
  if (s.claimOn === "train") {
    const f = faultsOf(cfg, "false_claim", true).at(-1);
    if (f) fired(cfg, f);
  }
  const manifest = await realManifest(cfg, "gbdt_train", {
    data_hash: run.ref.data_hash,
    split_hash: run.ref.split_hash,
    score: r2(part.y, predict(model.init, model.trees, part.X)),
    artifact: "model.json",
    best_step: run.bestStep,
    stages: run.step,
  });
  writeJsonAtomic(cfg.scope, "results.json", manifest);
  return 0;
}

if (import.meta.main) Deno.exit(await main());
