/**
 * Path and number helpers of the Deno worker SDK (POSIX paths; no std import, so workers run with --no-remote).
 *
 * @module
 */

export const isAbsolute = (p: string): boolean => p.startsWith("/");

/** Collapses `.`, `..` and repeated slashes of an absolute path (relative paths are made absolute first). */
export function normalize(p: string): string {
  const abs = isAbsolute(p) ? p : `${Deno.cwd()}/${p}`;
  const out: string[] = [];
  for (const part of abs.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return "/" + out.join("/");
}

export const join = (...parts: string[]): string => parts.join("/").replace(/\/+/g, "/");

export function basename(p: string): string {
  const trimmed = p.replace(/\/+$/, "");
  return trimmed.slice(trimmed.lastIndexOf("/") + 1);
}

/**
 * The absolute path `rel` names inside `base`, or null when it is not a non-empty path that stays inside
 * (absolute paths are accepted only when `absolute` is true and they lie inside `base`).
 */
export function resolveInside(base: string, rel: unknown, absolute = false): string | null {
  if (typeof rel !== "string" || rel === "" || (isAbsolute(rel) && !absolute)) return null;
  const root = normalize(base);
  const path = normalize(isAbsolute(rel) ? rel : `${root}/${rel}`);
  return path.startsWith(root + "/") ? path : null;
}

/** The number itself when it is a finite number; a RangeError saying what could not be done otherwise. */
export function finite(v: unknown, what: string): number {
  if (typeof v !== "number" || !Number.isFinite(v)) {
    throw new RangeError(`Cannot ${what}: ${JSON.stringify(v) ?? String(v)} is not a finite number`);
  }
  return v;
}
