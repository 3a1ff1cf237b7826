/**
 * A deep copy of JSON data (plain objects, arrays, strings, numbers, booleans, null), several times faster than
 * structuredClone on the small, shallow objects events and node states are made of. Everything the reducer
 * copies came from JSON or will be written as JSON, so nothing else needs handling; `undefined` values are
 * kept as they are (JSON.stringify drops them either way).
 *
 * @module
 */

export function copyJson<T>(v: T): T {
  if (typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) {
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = copyJson(v[i]);
    return out as T;
  }
  const out: Record<string, unknown> = {};
  for (const k in v) out[k] = copyJson((v as Record<string, unknown>)[k]);
  return out as T;
}
