/**
 * N4e on the real path: a reactive, lock-step evaluator. Each checkpoint the engine streams to it is reloaded
 * and scored on the frozen data set's dev rows as it arrives (one line in evals.jsonl each); when its sources
 * are done it claims the best score, naming that checkpoint in best.json for the @claim check.
 *
 * @module
 */
import { readConfig, type WorkerConfig } from "../lib/config.ts";
import { ScopeWriter } from "../lib/files.ts";
import { serve, type StreamEvent } from "../lib/protocol.ts";
import { type EvalFile, type GbdtFile, linkFrom, readKind, scoreGbdt } from "./artifact.ts";
import { type Dataset, loadDataset } from "./data.ts";
import { type DataRef, frozenData, relative } from "./locate.ts";
import { disturb } from "./fast.ts";
import { assertR2, falseClaim, realManifest } from "./manifest.ts";

interface Best {
  score: number;
  ev: StreamEvent;
  path: string;
}

export async function main(): Promise<number> {
  const cfg: WorkerConfig = await readConfig();
  assertR2(cfg);
  const out = new ScopeWriter(cfg.scope);
  Deno.mkdirSync(cfg.scope, { recursive: true });
  let data: { ref: DataRef; set: Dataset } | null = null;
  let best: Best | null = null;
  let seen = 0;
  const better = (a: number, b: number) => (cfg.protocol.direction === "maximize" ? a > b : a < b);

  const take = async (ev: StreamEvent) => {
    seen++;
    if (!data) {
      const ref = await frozenData(cfg);
      if (typeof ref === "string") throw new Error(ref);
      data = { ref, set: loadDataset(ref.csv, ref.split) };
    }
    const src = cfg.sources[ev.from];
    const path = `${src?.scope}/${ev.file}`;
    const ck = src ? readKind<GbdtFile>(path, "gbdt") : `unknown source ${ev.from}`;
    const score = typeof ck === "string" ? ck : scoreGbdt(ck, data.set);
    const row = typeof score === "string" ? { error: score } : { score };
    out.append("evals.jsonl", JSON.stringify({ from: ev.from, step: ev.step, file: ev.file, ...row }) + "\n");
    if (typeof score === "number" && (!best || better(score, best.score))) best = { score, ev, path };
  };

  // After a crash the engine replays what this attempt had already been handed; the scope already holds it.
  out.dry = true;
  for (const ev of cfg.delivered) await take(ev);
  out.dry = false;

  let local = 0;
  const queued: StreamEvent[] = [];
  return await serve(async (msg) => {
    local++;
    queued.push(...msg.events);
    if (cfg.catchup === 0 && disturb(cfg, local) === "stall") return { tokens: 0, done: false };
    for (const ev of queued.splice(0, queued.length)) await take(ev);
    if (!msg.finish) return { tokens: 0, done: false };
    const b = best as Best | null;
    const d = data as { ref: DataRef } | null;
    if (b && d) {
      const file: EvalFile = {
        kind: "ckpt_eval",
        ckpt: relative(cfg.scope, b.path),
        step: b.ev.step,
        data: linkFrom(cfg.scope, d.ref),
      };
      out.json("best.json", file);
    }
    out.json(
      "results.json",
      await realManifest(cfg, "ckpt_eval", {
        evaluated: seen,
        ...(b
          ? {
            score: falseClaim(cfg) ?? b.score,
            best_from: b.ev.from,
            best_step: b.ev.step,
            artifact: "best.json",
          }
          : {}),
      }),
    );
    return { tokens: 0, done: true };
  });
}

if (import.meta.main) Deno.exit(await main());
