/**
 * N1 on the real path: writes the data set and its split into the scope — the seeded default set, or the
 * user's CSV (`args.csv`, `args.target`) copied byte for byte — and a manifest whose data_hash and split_hash
 * are the sha256 of those two files.
 *
 * @module
 */
import type { WorkerConfig } from "../lib/config.ts";
import { parseNumericCsv } from "../../tabular/numeric.ts";
import { sha256 } from "../lib/files.ts";
import { FEATURES, generateCsv, makeSplit, splitJson, TARGET } from "./data.ts";
import { runFast } from "./fast.ts";
import { inheritedTuple, realManifest } from "./manifest.ts";

async function produce(cfg: WorkerConfig): Promise<void> {
  const seed = Number(inheritedTuple(cfg).seed ?? cfg.args.seed ?? 7);
  let csv: string | Uint8Array;
  let target = TARGET;
  let features = FEATURES;
  let rows = Number(cfg.args.rows ?? 400);
  const delimiter = typeof cfg.args.delimiter === "string" ? cfg.args.delimiter : ",";
  if (typeof cfg.args.csv === "string") {
    const file = cfg.args.csv;
    // The user's bytes are kept as they are, so data_hash is the sha256 of their file.
    csv = Deno.readFileSync(file);
    const table = parseNumericCsv(new TextDecoder().decode(csv), file, delimiter);
    target = String(cfg.args.target);
    if (!table.columns.includes(target)) throw new RangeError(`${file}:1: no column "${target}"`);
    features = table.columns.filter((c) => c !== target);
    rows = table.rows.length;
  } else {
    csv = generateCsv(seed, rows);
  }
  const split = splitJson(makeSplit(rows, seed, target, features, delimiter));
  if (typeof csv === "string") Deno.writeTextFileSync(`${cfg.scope}/data.csv`, csv);
  else Deno.writeFileSync(`${cfg.scope}/data.csv`, csv);
  Deno.writeTextFileSync(`${cfg.scope}/split.json`, split);
  const manifest = await realManifest(cfg, "make_data", {
    data_hash: await sha256(csv),
    split_hash: await sha256(split),
    artifact: "data.csv",
    split: "split.json",
    rows,
    target,
  });
  Deno.writeTextFileSync(`${cfg.scope}/results.json`, JSON.stringify(manifest, null, 2) + "\n");
}

export function main(): Promise<number> {
  return runFast("make_data", produce);
}

if (import.meta.main) Deno.exit(await main());
