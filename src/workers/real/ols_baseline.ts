/**
 * N3 on the real path: ordinary least squares on the frozen data set's training rows; its dev R² is the
 * claimed score, model.json the artifact the @claim check recomputes it from.
 *
 * @module
 */
import type { WorkerConfig } from "../lib/config.ts";
import { linkFrom, type OlsFile } from "./artifact.ts";
import { loadDataset } from "./data.ts";
import { runFast } from "./fast.ts";
import { frozenData } from "./locate.ts";
import { assertR2, falseClaim, realManifest } from "./manifest.ts";
import { fitOls, predictOls } from "./ols.ts";
import { r2 } from "./score.ts";

async function produce(cfg: WorkerConfig): Promise<void> {
  assertR2(cfg);
  const ref = await frozenData(cfg);
  if (typeof ref === "string") throw new Error(ref);
  const data = loadDataset(ref.csv, ref.split);
  const fit = fitOls(data.train.X, data.train.y);
  const model: OlsFile = {
    ...fit,
    features: data.features,
    target: data.target,
    data: linkFrom(cfg.scope, ref),
  };
  Deno.writeTextFileSync(`${cfg.scope}/model.json`, JSON.stringify(model, null, 2) + "\n");
  const manifest = await realManifest(cfg, "ols_baseline", {
    score: falseClaim(cfg) ?? r2(data.dev.y, predictOls(fit, data.dev.X)),
    train_r2: r2(data.train.y, predictOls(fit, data.train.X)),
    artifact: "model.json",
  });
  Deno.writeTextFileSync(`${cfg.scope}/results.json`, JSON.stringify(manifest, null, 2) + "\n");
}

export function main(): Promise<number> {
  return runFast("ols_baseline", produce);
}

if (import.meta.main) Deno.exit(await main());
