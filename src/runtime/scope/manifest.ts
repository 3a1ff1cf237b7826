/**
 * Reads a scope's results.json the way everything a worker writes is read: never through a symlink, only a
 * regular file, at most 1 MiB, nesting at most 32 deep, numbers finite; then typed field by field. Only
 * the fields the gates use are kept (plus a few small scalars as extras), so a hostile manifest can neither
 * crash arrow nor bloat state.json and the black box.
 *
 * @module
 */
import type { Manifest } from "../../model/state.ts";
import { parseBounded } from "../bounded_json.ts";
import { readRegular } from "../safe_read.ts";

export const MANIFEST_LIMITS = { maxBytes: 1 << 20, maxDepth: 32 } as const;
const MAX_EXTRAS = 16;
const MAX_TEXT = 200;

const describe = (v: unknown) =>
  v === null
    ? "null"
    : Array.isArray(v)
    ? "an array"
    : typeof v === "string"
    ? `"${v.slice(0, 40)}" (a string)`
    : `a ${typeof v}`;

/** A manifest value typed field by field; `error` names the first field that is wrong. */
export function toManifest(v: unknown): { manifest: Manifest | null; error?: string } {
  if (!v || typeof v !== "object" || Array.isArray(v)) {
    return { manifest: null, error: "results.json is not a JSON object" };
  }
  const o = v as Record<string, unknown>;
  if (typeof o.node !== "string" || o.node.length > 64) {
    return { manifest: null, error: "results.json has no node field (a string naming the node)" };
  }
  const m: Manifest = { node: o.node };
  const str = (
    k: "metric" | "data_hash" | "split_hash" | "protocol_version" | "code_sha" | "artifact",
    max = MAX_TEXT,
  ) => {
    const x = o[k];
    if (typeof x === "string" && x.length <= max && !x.includes("\u0000")) m[k] = x;
  };
  str("metric");
  str("data_hash");
  str("split_hash");
  str("protocol_version");
  str("code_sha");
  str("artifact", 4096);
  if (Number.isSafeInteger(o.seed)) m.seed = o.seed as number;
  if (typeof o.wall_s === "number" && Number.isFinite(o.wall_s)) m.wall_s = o.wall_s;
  let error: string | undefined;
  if ("score" in o) {
    if (typeof o.score === "number" && Number.isFinite(o.score)) m.score = o.score;
    else error = `results.json: score must be a finite number, got ${describe(o.score)}`;
  }
  const extra: Record<string, string | number | boolean> = {};
  for (const k of Object.keys(o).sort()) {
    if (k in m || k === "score" || Object.keys(extra).length >= MAX_EXTRAS || k.length > 64) continue;
    const x = o[k];
    if (typeof x === "boolean" || (typeof x === "number" && Number.isFinite(x))) extra[k] = x;
    else if (typeof x === "string" && x.length <= MAX_TEXT) extra[k] = x;
  }
  if (Object.keys(extra).length) m.extra = extra;
  return error ? { manifest: m, error } : { manifest: m };
}

/** Reads `<scope>/results.json` within limits. */
export function readManifest(scope: string): { manifest: Manifest | null; error?: string } {
  const r = readRegular(`${scope}/results.json`, MANIFEST_LIMITS.maxBytes);
  if (!r.ok) return { manifest: null, error: `results.json ${r.error}` };
  const parsed = parseBounded(r.bytes, MANIFEST_LIMITS);
  if (!parsed.ok) return { manifest: null, error: `results.json: ${parsed.error}` };
  return toManifest(parsed.value);
}
