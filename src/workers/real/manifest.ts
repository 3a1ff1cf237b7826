/**
 * results.json for real workers: node, metric, the comparability tuple inherited from the inputs, a code
 * identity and the wall time, plus what the worker adds. Worker-side `manifest_override` faults apply last.
 *
 * @module
 */
import { faultsOf, type WorkerConfig } from "../lib/config.ts";
import { fired } from "../lib/fired.ts";
import { readJson, sha256 } from "../lib/files.ts";

export type Manifest = Record<string, unknown>;
export const TUPLE = ["data_hash", "split_hash", "protocol_version", "seed"] as const;

const started = performance.now();

/** The built-in workers score dev R², which only makes sense under a protocol that maximizes its metric. */
export function assertR2(cfg: WorkerConfig): void {
  if (cfg.protocol.direction !== "maximize") {
    throw new RangeError(
      `the built-in real workers score dev R² (higher is better); the protocol minimizes ${cfg.protocol.metric}`,
    );
  }
}

/** The tuple fields the inputs carry (inputs in sorted id order; the first to carry a field wins). */
export function inheritedTuple(cfg: WorkerConfig): Manifest {
  const out: Manifest = {};
  for (const id of Object.keys(cfg.inputs).sort()) {
    const m = readJson<Manifest>(`${cfg.inputs[id]!.scope}/results.json`) ?? {};
    for (const f of TUPLE) if (out[f] === undefined && m[f] !== undefined) out[f] = m[f];
  }
  return out;
}

/** Field overrides of this attempt's manifest_override faults (applied by the caller, last). */
export function overrides(cfg: WorkerConfig): Manifest {
  const list = faultsOf(cfg, "manifest_override", true);
  for (const f of list) fired(cfg, f);
  return list.reduce<Manifest>((acc, f) => ({ ...acc, ...(f.set as Manifest) }), {});
}

/** The false_claim fault: the score this lap claims instead of the real one, if any. */
export function falseClaim(cfg: WorkerConfig): number | undefined {
  const f = faultsOf(cfg, "false_claim", true).at(-1);
  const c = (f?.claims as number[] | undefined)?.[cfg.lap - 1];
  if (f && c !== undefined) fired(cfg, f);
  return c;
}

/** The manifest every real worker starts from; `fields` go on top, overrides on top of everything. */
export async function realManifest(cfg: WorkerConfig, worker: string, fields: Manifest): Promise<Manifest> {
  return {
    node: cfg.node,
    metric: cfg.protocol.metric,
    ...inheritedTuple(cfg),
    code_sha: (await sha256(`arrow-real/1:${worker}:${JSON.stringify(cfg.args)}`)).slice(0, 12),
    wall_s: Math.round(performance.now() - started) / 1000,
    ...fields,
    ...overrides(cfg),
  };
}
