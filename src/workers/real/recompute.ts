/**
 * Recomputes the dev R² of a real artifact from scratch: reload the model (or the checkpoint an evaluation
 * names), reload the data it links to, check the data's hashes, predict, score. What the worker claimed
 * plays no part.
 *
 * @module
 */
import type { Recomputer } from "../lib/recompute.ts";
import type { DataRef } from "./locate.ts";
import {
  type DataLink,
  dirOf,
  type EvalFile,
  follow,
  type GbdtFile,
  type OlsFile,
  readKind,
  scoreGbdt,
  scoreOls,
} from "./artifact.ts";

/**
 * The data a score is recomputed on: the frozen data set when there is one (never what the artifact links
 * to, which its writer controls), else the artifact's own link.
 */
async function dataFor(dir: string, link: DataLink, frozen: DataRef | null) {
  return await follow(frozen ? "/" : dir, frozen ? frozenLink(frozen) : link);
}

function frozenLink(d: DataRef): DataLink {
  return { csv: d.csv, split: d.split, data_hash: d.data_hash, split_hash: d.split_hash };
}

async function gbdt(path: string, frozen: DataRef | null): Promise<number | string> {
  const m = readKind<GbdtFile>(path, "gbdt");
  if (typeof m === "string") return m;
  const data = await dataFor(dirOf(path), m.data, frozen);
  return typeof data === "string" ? data : scoreGbdt(m, data);
}

async function ols(path: string, frozen: DataRef | null): Promise<number | string> {
  const m = readKind<OlsFile>(path, "ols");
  if (typeof m === "string") return m;
  const data = await dataFor(dirOf(path), m.data, frozen);
  return typeof data === "string" ? data : scoreOls(m, data);
}

/** An evaluation's claim: the checkpoint it names, scored on the frozen data (not the trainer's). */
async function ckptEval(path: string, frozen: DataRef | null): Promise<number | string> {
  const e = readKind<EvalFile>(path, "ckpt_eval");
  if (typeof e === "string") return e;
  const ckptPath = e.ckpt.startsWith("/") ? e.ckpt : `${dirOf(path)}/${e.ckpt}`;
  const m = readKind<GbdtFile>(ckptPath, "gbdt");
  if (typeof m === "string") return m;
  const data = await dataFor(dirOf(path), e.data, frozen);
  return typeof data === "string" ? data : scoreGbdt(m, data);
}

const BY_KIND: Record<string, (path: string, frozen: DataRef | null) => Promise<number | string>> = {
  gbdt,
  ols,
  ckpt_eval: ckptEval,
};

export function recomputer(kind: string): Recomputer {
  const f = BY_KIND[kind]!;
  return (_art, _scope, path, data) => f(path, data);
}
