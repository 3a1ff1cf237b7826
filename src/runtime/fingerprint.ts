/**
 * Scope fingerprints at the cost of a stat walk: each file's (size, mtime, ctime, inode) is cached with its
 * sha256, and only files whose stat changed are read again. A file modified within the last scan's clock
 * granularity is "racy" (its stat could hide a second write) and is always rehashed, as git does.
 * Large files stream through node:crypto in 4 MiB chunks.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { lstatSync, readlinkSync } from "node:fs";
import { EMPTY_FP } from "../model/state.ts";

interface Entry {
  size: bigint;
  mtime: bigint;
  ctime: bigint;
  ino: bigint;
  hash: string;
}

export interface ScopePrint {
  fp: string;
  /** Relative path → sha256 of the content. */
  files: Map<string, string>;
}

const CHUNK = 4 << 20;
const RACY_NS = 50_000_000n;

export function hashFile(path: string, size: number): string {
  const h = createHash("sha256");
  if (size <= CHUNK) {
    h.update(Deno.readFileSync(path));
    return h.digest("hex");
  }
  const buf = new Uint8Array(CHUNK);
  using f = Deno.openSync(path, { read: true });
  for (;;) {
    const n = f.readSync(buf);
    if (n === null || n === 0) break;
    h.update(n === CHUNK ? buf : buf.subarray(0, n));
  }
  return h.digest("hex");
}

/** Fingerprint from a file map: sha256 over sorted "path NUL hash" lines, shortened. */
export function fingerprintOf(files: ReadonlyMap<string, string>): string {
  if (files.size === 0) return EMPTY_FP;
  const h = createHash("sha256");
  for (const rel of [...files.keys()].sort()) h.update(`${rel}\0${files.get(rel)}\n`);
  return h.digest("hex").slice(0, 20);
}

export class Fingerprinter {
  #cache = new Map<string, Entry>();
  #lastScanNs = 0n;
  /** Files read and hashed (not served from cache) since construction. */
  rehashed = 0;

  /** Fingerprints a directory tree (a missing directory is empty). */
  scan(dir: string): ScopePrint {
    const startNs = BigInt(Date.now()) * 1_000_000n;
    const files = new Map<string, string>();
    const walk = (abs: string, rel: string) => {
      let it: Iterable<Deno.DirEntry>;
      try {
        it = Deno.readDirSync(abs);
      } catch (e) {
        if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) return;
        throw e;
      }
      for (const d of it) {
        const p = `${abs}/${d.name}`;
        const r = rel ? `${rel}/${d.name}` : d.name;
        if (d.isDirectory) walk(p, r);
        else {
          const hash = this.#hash(p, d.isSymlink);
          if (hash !== null) files.set(r, hash);
        }
      }
    };
    walk(dir, "");
    this.#lastScanNs = startNs;
    return { fp: fingerprintOf(files), files };
  }

  /** The file's hash, or null when it vanished after the directory was listed (a writer renamed it away). */
  #hash(path: string, symlink: boolean): string | null {
    try {
      return this.#hashOf(path, symlink);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound || (e as { code?: string }).code === "ENOENT") return null;
      throw e;
    }
  }

  #hashOf(path: string, symlink: boolean): string {
    const st = lstatSync(path, { bigint: true });
    const hit = this.#cache.get(path);
    const racy = st.mtimeNs + RACY_NS >= this.#lastScanNs;
    if (
      hit && !racy && hit.size === st.size && hit.mtime === st.mtimeNs && hit.ctime === st.ctimeNs &&
      hit.ino === st.ino
    ) {
      return hit.hash;
    }
    this.rehashed++;
    const hash = symlink
      ? createHash("sha256").update("symlink:" + readlinkSync(path)).digest("hex")
      : hashFile(path, Number(st.size));
    this.#cache.set(path, { size: st.size, mtime: st.mtimeNs, ctime: st.ctimeNs, ino: st.ino, hash });
    return hash;
  }
}
