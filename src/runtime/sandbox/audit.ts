/**
 * Reads Deno's permission audit log (DENO_AUDIT_PERMISSIONS) of a worker and picks out writes outside its
 * scope. Deno logs allowed and denied checks alike, so the comparison with the allow-list is done here.
 *
 * @module
 */
import { JsonlTail } from "../proc/tail.ts";

/** Resolves `p` against `cwd` and removes `.` and `..` segments (no filesystem access). */
export function resolvePath(cwd: string, p: string): string {
  const parts: string[] = [];
  for (const seg of (p.startsWith("/") ? p : `${cwd}/${p}`).split("/")) {
    if (!seg || seg === ".") continue;
    if (seg === "..") parts.pop();
    else parts.push(seg);
  }
  return "/" + parts.join("/");
}

export function inside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith("/") ? dir : dir + "/");
}

export class AuditReader {
  #tail: JsonlTail;

  /** `allowed`: the scope and any other path the worker may write (its fault log). */
  constructor(path: string, readonly allowed: readonly string[], readonly cwd: string) {
    this.#tail = new JsonlTail(path);
  }

  /** New write checks outside the scope since the last call (absolute paths, in log order, deduplicated). */
  escapes(): string[] {
    const out: string[] = [];
    for (const row of this.#tail.read()) {
      if (row.permission !== "write" || typeof row.value !== "string") continue;
      const abs = resolvePath(this.cwd, row.value);
      if (!this.allowed.some((a) => inside(abs, a)) && !out.includes(abs)) out.push(abs);
    }
    return out;
  }
}
