/**
 * A content-addressed store of scope contents: regular files by the sha256 of their bytes (copied streamed,
 * never through a symlink, re-hashed as they are copied), symlinks by the hash of their target. It is what a
 * foreign write is reverted from and what a resumed run restores scopes from. Its total size is capped: a
 * file that does not fit is not kept, and a later revert of it honestly fails instead of pretending.
 *
 * @module
 */
import { copyRegular, hashRegular } from "../safe_read.ts";

/** Default cap on the bytes all blobs of one run may take (ARROW_BLOB_CAP_MB overrides). */
export const DEFAULT_BLOB_CAP = 2 * 1024 ** 3;

/** A recorded scope entry: what is there (see ScopePrint.files) and, for a regular file, its size. */
export interface Rec {
  v: string;
  n: number;
}

export type FileMap = Record<string, Rec>;

const isContent = (v: string) => /^[0-9a-f]{64}$/.test(v);

export class BlobStore {
  #prefixes = new Set<string>();
  #total: number | null = null;
  readonly cap: number;

  constructor(readonly dir: string, cap?: number) {
    Deno.mkdirSync(dir, { recursive: true });
    const env = Number(Deno.env.get("ARROW_BLOB_CAP_MB"));
    this.cap = cap ?? (Number.isFinite(env) && env > 0 ? env * (1 << 20) : DEFAULT_BLOB_CAP);
  }

  #path(key: string): string {
    return `${this.dir}/${key.slice(0, 2)}/${key.slice(2)}`;
  }

  /** Bytes stored so far (walked once, then kept up to date). */
  total(): number {
    if (this.#total !== null) return this.#total;
    let t = 0;
    const walk = (d: string) => {
      for (const e of Deno.readDirSync(d)) {
        if (e.isDirectory) walk(`${d}/${e.name}`);
        else if (e.isFile) t += Deno.lstatSync(`${d}/${e.name}`).size;
      }
    };
    walk(this.dir);
    return this.#total = t;
  }

  #exists(key: string): boolean {
    try {
      return Deno.lstatSync(this.#path(key)).isFile;
    } catch {
      return false;
    }
  }

  /** True when the recorded entry `v` can be put back from the store. */
  has(v: string): boolean {
    if (isContent(v)) return this.#exists(v);
    if (v.startsWith("link:")) return this.#exists(`${v.slice(5)}.link`);
    return false;
  }

  #mkdirFor(key: string): void {
    const prefix = `${this.dir}/${key.slice(0, 2)}`;
    // mkdir costs ~1 ms here even when the directory exists, and a tick stores a few blobs.
    if (!this.#prefixes.has(prefix)) {
      Deno.mkdirSync(prefix, { recursive: true });
      this.#prefixes.add(prefix);
    }
  }

  /** Keeps a regular file's bytes under `hash`; false when it changed meanwhile, is not regular, or does not fit. */
  put(file: string, hash: string, size: number): boolean {
    if (!isContent(hash)) return false;
    if (this.#exists(hash)) return true;
    if (this.total() + size > this.cap) return false;
    this.#mkdirFor(hash);
    const tmp = `${this.#path(hash)}.${Deno.pid}.tmp`;
    const r = copyRegular(file, tmp, this.cap - this.total());
    if ("error" in r || r.hash !== hash) {
      removeAny(tmp);
      return false;
    }
    // No fsync: a blob lost to a power cut is reported by restore(); a killed process cannot lose it.
    Deno.renameSync(tmp, this.#path(hash));
    this.#total = this.total() + r.size;
    return true;
  }

  /** Keeps a symlink's target (recorded as `link:<hash of target>`). */
  putLink(v: string, target: string): void {
    const key = `${v.slice(5)}.link`;
    if (this.#exists(key)) return;
    this.#mkdirFor(key);
    Deno.writeTextFileSync(this.#path(key), target);
  }

  /**
   * Puts `want` back at `abs`. A regular file comes from its blob, or, when it was never kept, by cutting
   * the current file back to its recorded length if what remains hashes to the recorded content (an
   * append-only file such as metrics.jsonl). Returns false when neither works.
   */
  restoreOne(abs: string, want: Rec): boolean {
    const dir = abs.slice(0, abs.lastIndexOf("/"));
    Deno.mkdirSync(dir, { recursive: true });
    if (want.v.startsWith("link:") && this.has(want.v)) {
      const target = Deno.readTextFileSync(this.#path(`${want.v.slice(5)}.link`));
      removeAny(abs);
      Deno.symlinkSync(target, abs);
      return true;
    }
    if (!isContent(want.v)) return false;
    if (this.#exists(want.v)) {
      const tmp = `${abs}.${Deno.pid}.restore`;
      removeAny(tmp);
      const r = copyRegular(this.#path(want.v), tmp, Number.MAX_SAFE_INTEGER);
      if ("error" in r || r.hash !== want.v) {
        removeAny(tmp);
        return false;
      }
      removeAny(abs);
      Deno.renameSync(tmp, abs);
      return true;
    }
    const head = hashRegular(abs, want.n);
    if ("error" in head || head.prefix !== want.v) return false;
    Deno.truncateSync(abs, want.n);
    return true;
  }

  /** True when `want` could be put back at `abs` (see restoreOne), without changing anything. */
  canRestore(abs: string, want: Rec): boolean {
    if (this.has(want.v)) return true;
    if (!isContent(want.v)) return false;
    const head = hashRegular(abs, want.n);
    return !("error" in head) && head.prefix === want.v;
  }
}

/** Removes a file, symlink or directory tree at `abs`, if there is one (never following a symlink). */
export function removeAny(abs: string): void {
  try {
    Deno.removeSync(abs, { recursive: true });
  } catch {
    // absent already
  }
}
