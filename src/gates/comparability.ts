/**
 * The comparability gate: every incoming manifest's four-tuple (data_hash, split_hash, protocol_version,
 * seed) must equal the frozen baseline's. Hashes and versions compare as strings and the seed as an
 * integer; no float is ever compared for equality. The first deviator in sorted node order is blamed.
 *
 * @module
 */
import type { Manifest, Tuple } from "../model/state.ts";

export const TUPLE_FIELDS = ["data_hash", "split_hash", "protocol_version", "seed"] as const;

export interface Deviation {
  node: string;
  field: (typeof TUPLE_FIELDS)[number];
  expected: string | number;
  got: string | number | null;
}

/** Reads the tuple from a manifest; undefined when a field is missing or of the wrong type. */
export function tupleOf(m: Manifest): Tuple | undefined {
  const { data_hash, split_hash, protocol_version, seed } = m;
  if (typeof data_hash !== "string" || typeof split_hash !== "string") return undefined;
  if (typeof protocol_version !== "string" || !Number.isInteger(seed)) return undefined;
  return { data_hash, split_hash, protocol_version, seed: seed as number };
}

/** A manifest at the gate, with the tuple fields it is held to (all four for results that make claims). */
export interface Gated {
  manifest: Manifest;
  fields: readonly (typeof TUPLE_FIELDS)[number][];
}

/** The first deviation among `entries` (sorted by node id), or null when all are comparable. */
export function checkComparability(frozen: Tuple, entries: readonly Gated[]): Deviation | null {
  const sorted = [...entries].sort((
    a,
    b,
  ) => (a.manifest.node < b.manifest.node ? -1 : a.manifest.node > b.manifest.node ? 1 : 0));
  for (const { manifest: m, fields } of sorted) {
    for (const field of fields) {
      const got = m[field];
      const same = field === "seed"
        ? Number.isInteger(got) && got === frozen.seed
        : typeof got === "string" && got === frozen[field];
      if (!same) {
        return { node: m.node, field, expected: frozen[field], got: (got ?? null) as string | number | null };
      }
    }
  }
  return null;
}
