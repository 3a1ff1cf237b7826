/**
 * Recomputes the dev R² of a real artifact from scratch: reload the model (or the checkpoint an evaluation
 * names), reload the data it links to, check the data's hashes, predict, score. What the worker claimed
 * plays no part.
 *
 * @module
 */
import type { Recomputer } from "../lib/recompute.ts";
import {
  dirOf,
  type EvalFile,
  follow,
  type GbdtFile,
  type OlsFile,
  readKind,
  scoreGbdt,
  scoreOls,
} from "./artifact.ts";

async function gbdt(path: string): Promise<number | string> {
  const m = readKind<GbdtFile>(path, "gbdt");
  if (typeof m === "string") return m;
  const data = await follow(dirOf(path), m.data);
  return typeof data === "string" ? data : scoreGbdt(m, data);
}

async function ols(path: string): Promise<number | string> {
  const m = readKind<OlsFile>(path, "ols");
  if (typeof m === "string") return m;
  const data = await follow(dirOf(path), m.data);
  return typeof data === "string" ? data : scoreOls(m, data);
}

/** An evaluation's claim: the checkpoint it names, scored on the data the evaluation used (not the trainer's). */
async function ckptEval(path: string): Promise<number | string> {
  const e = readKind<EvalFile>(path, "ckpt_eval");
  if (typeof e === "string") return e;
  const ckptPath = e.ckpt.startsWith("/") ? e.ckpt : `${dirOf(path)}/${e.ckpt}`;
  const m = readKind<GbdtFile>(ckptPath, "gbdt");
  if (typeof m === "string") return m;
  const data = await follow(dirOf(path), e.data);
  return typeof data === "string" ? data : scoreGbdt(m, data);
}

const BY_KIND: Record<string, (path: string) => Promise<number | string>> = {
  gbdt,
  ols,
  ckpt_eval: ckptEval,
};

export function recomputer(kind: string): Recomputer {
  const f = BY_KIND[kind]!;
  return (_art, _scope, path) => f(path);
}
