/**
 * Finds the data set a worker must use from world-state alone: the data node whose manifest carries the
 * frozen (data_hash, split_hash) and whose files still hash to them. Workers never trust a path they are
 * told; a data set that no longer matches its hash is not found.
 *
 * @module
 */
import type { WorkerConfig } from "../lib/config.ts";
import { readJson, sha256 } from "../lib/files.ts";
import type { Manifest } from "./manifest.ts";
import { inheritedTuple } from "./manifest.ts";

export interface DataRef {
  /** Absolute paths of the CSV and its split file. */
  csv: string;
  split: string;
  data_hash: string;
  split_hash: string;
}

async function hashOf(path: string): Promise<string | null> {
  try {
    return await sha256(Deno.readFileSync(path));
  } catch {
    return null;
  }
}

/** The data set with the given hashes among the scopes the worker may read (direct inputs first). */
export async function findData(cfg: WorkerConfig, want: { data_hash: string; split_hash: string }) {
  const dirs = Object.keys(cfg.inputs).sort().map((id) => cfg.inputs[id]!.scope);
  for (const id of Object.keys(cfg.ancestors ?? {}).sort()) dirs.push(cfg.ancestors[id]!.scope);
  for (const dir of dirs) {
    const m = readJson<Manifest>(`${dir}/results.json`);
    if (!m || m.data_hash !== want.data_hash || m.split_hash !== want.split_hash) continue;
    if (typeof m.artifact !== "string" || typeof m.split !== "string") continue;
    const ref = { csv: `${dir}/${m.artifact}`, split: `${dir}/${m.split}`, ...want };
    if ((await hashOf(ref.csv)) === want.data_hash && (await hashOf(ref.split)) === want.split_hash) {
      return ref;
    }
  }
  return null;
}

/** The data set the worker's inputs froze, or an error message naming what is missing. */
export async function frozenData(cfg: WorkerConfig): Promise<DataRef | string> {
  const t = inheritedTuple(cfg);
  if (typeof t.data_hash !== "string" || typeof t.split_hash !== "string") {
    return `no input of ${cfg.node} carries data_hash and split_hash`;
  }
  const ref = await findData(cfg, { data_hash: t.data_hash, split_hash: t.split_hash });
  return ref ?? `no data set among ${cfg.node}'s inputs hashes to data_hash ${t.data_hash.slice(0, 12)}…`;
}

/** `to` relative to directory `from` (both absolute), for references a checker resolves later. */
export function relative(from: string, to: string): string {
  const a = from.split("/").filter(Boolean);
  const b = to.split("/").filter(Boolean);
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return [...a.slice(i).map(() => ".."), ...b.slice(i)].join("/") || ".";
}
