/**
 * Real artifacts and how they are scored. Every model file names the data it was scored on by a link: the CSV
 * and split paths relative to the file itself (like a web page's links, so a run directory can move) and their
 * sha256. Scoring an artifact reloads that data, checks the hashes, and recomputes dev R² from the model.
 *
 * @module
 */
import { sha256 } from "../lib/files.ts";
import { type Dataset, loadDataset } from "./data.ts";
import { predict, type Tree } from "./gbdt.ts";
import type { DataRef } from "./locate.ts";
import { relative } from "./locate.ts";
import { type OlsModel, predictOls } from "./ols.ts";
import { r2 } from "./score.ts";

export interface DataLink {
  csv: string;
  split: string;
  data_hash: string;
  split_hash: string;
}

export interface GbdtFile {
  kind: "gbdt";
  /** Stages the file holds. */
  step: number;
  features: string[];
  target: string;
  init: number;
  trees: Tree[];
  data: DataLink;
  /** Best dev score seen up to `step`, and the stage it was reached at (checkpoints, for resuming). */
  best?: number;
  best_step?: number;
}

export interface OlsFile extends OlsModel {
  features: string[];
  target: string;
  data: DataLink;
}

/** N4e's artifact: which checkpoint scored best, and on which data. */
export interface EvalFile {
  kind: "ckpt_eval";
  ckpt: string;
  step: number;
  data: DataLink;
}

export const dirOf = (path: string) => path.slice(0, path.lastIndexOf("/")) || "/";

/** A link to `ref` from a file that will live in directory `dir`. */
export function linkFrom(dir: string, ref: DataRef): DataLink {
  return {
    csv: relative(dir, ref.csv),
    split: relative(dir, ref.split),
    data_hash: ref.data_hash,
    split_hash: ref.split_hash,
  };
}

function resolve(dir: string, rel: string): string {
  return rel.startsWith("/") ? rel : `${dir}/${rel}`;
}

/** Loads the data a link names, after checking both files still hash to what the link recorded. */
export async function follow(dir: string, link: DataLink): Promise<Dataset | string> {
  const csv = resolve(dir, link.csv);
  const split = resolve(dir, link.split);
  let bytes: [Uint8Array, Uint8Array];
  try {
    bytes = [Deno.readFileSync(csv), Deno.readFileSync(split)];
  } catch (e) {
    return `cannot read the data the artifact names: ${(e as Error).message}`;
  }
  if ((await sha256(bytes[0])) !== link.data_hash) {
    return `${link.csv} no longer hashes to the linked data_hash`;
  }
  if ((await sha256(bytes[1])) !== link.split_hash) {
    return `${link.split} no longer hashes to the linked split_hash`;
  }
  try {
    return loadDataset(csv, split);
  } catch (e) {
    return (e as Error).message;
  }
}

/** Checks a model's feature list against the data it is scored on. */
function sameFeatures(model: { features?: unknown }, data: Dataset): string | null {
  return JSON.stringify(model.features) === JSON.stringify(data.features)
    ? null
    : `model features ${JSON.stringify(model.features)} differ from the data's ${
      JSON.stringify(data.features)
    }`;
}

export function scoreGbdt(m: GbdtFile, data: Dataset, part: "dev" | "train" = "dev"): number | string {
  return sameFeatures(m, data) ?? r2(data[part].y, predict(m.init, m.trees, data[part].X));
}

export function scoreOls(m: OlsFile, data: Dataset): number | string {
  return sameFeatures(m, data) ?? r2(data.dev.y, predictOls(m, data.dev.X));
}

/** Reads a JSON file of a given kind; an error message when it is missing, broken or of another kind. */
export function readKind<T extends { kind: string }>(path: string, kind: T["kind"]): T | string {
  let v: unknown;
  try {
    v = JSON.parse(Deno.readTextFileSync(path));
  } catch (e) {
    return `cannot read ${path}: ${(e as Error).message}`;
  }
  if (!v || typeof v !== "object" || (v as { kind?: unknown }).kind !== kind) {
    return `${path} is not a ${kind} file`;
  }
  return v as T;
}
