/**
 * Fitted transform states as JSON and back: a step's state may hold Maps, Sets and typed arrays, which plain
 * JSON would flatten to `{}`; each is written as a tagged object (`{"$map": [[k, v], …]}`, `{"$set": […]}`,
 * `{"$f64": […]}`) so a saved model predicts with exactly the state it was fit with.
 *
 * @module
 */

/** `value` as JSON-ready data (Maps, Sets and typed arrays tagged). */
export function encodeState(value: unknown): unknown {
  if (value instanceof Map) return { $map: [...value].map(([k, v]) => [encodeState(k), encodeState(v)]) };
  if (value instanceof Set) return { $set: [...value].map(encodeState) };
  if (value instanceof Float64Array || value instanceof Float32Array) return { $f64: Array.from(value) };
  if (value instanceof Int32Array || value instanceof Uint8Array) return { $i32: Array.from(value) };
  if (Array.isArray(value)) return value.map(encodeState);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, encodeState(v)]));
  }
  if (typeof value === "number" && !Number.isFinite(value)) return { $num: String(value) };
  return value;
}

/** The inverse of `encodeState`. */
export function decodeState(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decodeState);
  if (value === null || typeof value !== "object") return value;
  const o = value as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length === 1) {
    if (Array.isArray(o.$map)) {
      return new Map((o.$map as [unknown, unknown][]).map(([k, v]) => [decodeState(k), decodeState(v)]));
    }
    if (Array.isArray(o.$set)) return new Set((o.$set as unknown[]).map(decodeState));
    if (Array.isArray(o.$f64)) return Float64Array.from(o.$f64 as number[]);
    if (Array.isArray(o.$i32)) return Int32Array.from(o.$i32 as number[]);
    if (typeof o.$num === "string") return Number(o.$num);
  }
  return Object.fromEntries(keys.map((k) => [k, decodeState(o[k])]));
}
