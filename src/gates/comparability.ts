/**
 * The comparability gate: every incoming manifest's four-tuple (data_hash, split_hash, protocol_version,
 * seed) must equal the frozen baseline's. Hashes and versions compare as strings and the seed as an
 * integer; no float is ever compared for equality. The first deviator in sorted node order is blamed.
 *
 * @module
 */
import type { PlanNode, Role } from "../graph/types.ts";
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

/** Roles whose results make claims: held to all four tuple fields, a missing one is a deviation. */
export const TUPLE_ROLES: ReadonlySet<Role> = new Set(["baseline", "train", "eval", "ablation"]);

/**
 * The manifest as the gate holds it: claim-making roles to all four fields; the harness is what freezes the
 * tuple and is never held to it; other roles only to the fields they carry. Null when nothing is held.
 */
export function gated(node: PlanNode, m: Manifest): Gated | null {
  if (node.role === "harness") return null;
  if (TUPLE_ROLES.has(node.role)) return { manifest: m, fields: TUPLE_FIELDS };
  const fields = TUPLE_FIELDS.filter((f) => f in m);
  return fields.length ? { manifest: m, fields } : null;
}

/** The first field of one manifest that deviates from `frozen`, or null. */
function deviationOf(frozen: Tuple, { manifest: m, fields }: Gated): Deviation | null {
  for (const field of fields) {
    const got = m[field];
    const same = field === "seed"
      ? Number.isInteger(got) && got === frozen.seed
      : typeof got === "string" && got === frozen[field];
    if (!same) {
      const shown = typeof got === "string" || typeof got === "number" ? got : null;
      return { node: m.node, field, expected: frozen[field], got: shown };
    }
  }
  return null;
}

/** Every deviation among `entries`, one per deviating manifest, in sorted node order. */
export function deviations(frozen: Tuple, entries: readonly Gated[]): Deviation[] {
  const sorted = [...entries].sort((
    a,
    b,
  ) => (a.manifest.node < b.manifest.node ? -1 : a.manifest.node > b.manifest.node ? 1 : 0));
  return sorted.map((g) => deviationOf(frozen, g)).filter((d): d is Deviation => d !== null);
}

/** The first deviation among `entries` (sorted by node id), or null when all are comparable. */
export function checkComparability(frozen: Tuple, entries: readonly Gated[]): Deviation | null {
  return deviations(frozen, entries)[0] ?? null;
}
