/**
 * The "improvement" of the trap_b scenario, done for real: drop the rows a linear fit explains worst (the
 * noisy ones), re-split what is left with the same seed, and write both as a new data set in the trainer's own
 * scope. Its content hashes differ from the frozen ones, which is exactly what the comparability gate sees.
 *
 * @module
 */
import { parseNumericCsv } from "../../tabular/numeric.ts";
import { sha256 } from "../lib/files.ts";
import { makeSplit, type Split, splitJson } from "./data.ts";
import type { DataRef } from "./locate.ts";
import { fitOls, predictOls } from "./ols.ts";

export async function dropNoisy(ref: DataRef, fraction: number, scope: string): Promise<DataRef> {
  const split = JSON.parse(Deno.readTextFileSync(ref.split)) as Split;
  const table = parseNumericCsv(Deno.readTextFileSync(ref.csv), ref.csv, split.delimiter ?? ",");
  const fj = split.features.map((f) => table.columns.indexOf(f));
  const tj = table.columns.indexOf(split.target);
  const X = table.rows.map((r) => fj.map((j) => r[j]!));
  const y = table.rows.map((r) => r[tj]!);
  const fit = predictOls(fitOls(X, y), X);
  const worst = y.map((v, i) => [Math.abs(v - fit[i]!), i] as const).sort((a, b) =>
    b[0] - a[0] || a[1] - b[1]
  );
  const drop = new Set(worst.slice(0, Math.round(fraction * y.length)).map(([, i]) => i));
  const kept = table.rows.filter((_, i) => !drop.has(i));
  const csv = [table.columns.join(","), ...kept.map((r) => r.map(String).join(","))].join("\n") + "\n";
  const sj = splitJson(makeSplit(kept.length, split.seed, split.target, split.features));
  Deno.writeTextFileSync(`${scope}/data_clean.csv`, csv);
  Deno.writeTextFileSync(`${scope}/split_clean.json`, sj);
  return {
    csv: `${scope}/data_clean.csv`,
    split: `${scope}/split_clean.json`,
    data_hash: await sha256(csv),
    split_hash: await sha256(sj),
  };
}
