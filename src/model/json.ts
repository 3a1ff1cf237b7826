/**
 * Canonical JSON: keys sorted at every level, so equal values always serialise to equal bytes.
 *
 * @module
 */

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = sortKeys(v);
    }
    return out;
  }
  return value;
}

/** JSON with sorted keys and no whitespace (one line). */
export function canonical(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

/** JSON with sorted keys, indented, for files people read. */
export function canonicalPretty(value: unknown): string {
  return JSON.stringify(sortKeys(value), null, 2) + "\n";
}
