/**
 * A content-addressed store of scope files and the record of every scope at the last persisted tick. It is
 * both the "last good snapshot" a foreign write is reverted from and what a resumed run restores scopes
 * from, so a crash in the middle of a tick leaves no trace in what the run observes afterwards.
 *
 * @module
 */
import { hashFile } from "./fingerprint.ts";

/** Files up to this size are kept; larger ones are recorded by hash only (real checkpoints can be huge). */
export const BLOB_LIMIT = 8 << 20;

export type FileMap = Record<string, string>;

export class BlobStore {
  #prefixes = new Set<string>();

  constructor(readonly dir: string) {
    Deno.mkdirSync(dir, { recursive: true });
  }

  #path(hash: string): string {
    return `${this.dir}/${hash.slice(0, 2)}/${hash.slice(2)}`;
  }

  has(hash: string): boolean {
    try {
      Deno.statSync(this.#path(hash));
      return true;
    } catch {
      return false;
    }
  }

  #corrupt(hash: string): boolean {
    const p = this.#path(hash);
    return hashFile(p, Deno.statSync(p).size) !== hash;
  }

  /** Stores a file's bytes under its hash (if small enough and not stored yet). */
  put(file: string, hash: string): void {
    if (this.has(hash)) return;
    let size: number;
    try {
      size = Deno.statSync(file).size;
    } catch {
      return;
    }
    if (size > BLOB_LIMIT) return;
    const bytes = Deno.readFileSync(file);
    if (hashFile(file, size) !== hash) return;
    const prefix = `${this.dir}/${hash.slice(0, 2)}`;
    // mkdir costs ~1 ms here even when the directory exists, and a tick stores a few blobs.
    if (!this.#prefixes.has(prefix)) {
      Deno.mkdirSync(prefix, { recursive: true });
      this.#prefixes.add(prefix);
    }
    // No fsync: a blob lost to a power cut is reported by restore(); a killed process cannot lose it.
    Deno.writeFileSync(this.#path(hash), bytes);
  }

  /**
   * Makes `scopeDir` hold exactly `files` (restricted to `only` when given): extra files removed, missing
   * or different ones restored. Returns the paths it changed and those it could not restore.
   */
  restore(
    scopeDir: string,
    files: FileMap,
    current: FileMap,
    only?: string[],
  ): { changed: string[]; lost: string[] } {
    const changed: string[] = [];
    const lost: string[] = [];
    const paths = only ?? [...new Set([...Object.keys(files), ...Object.keys(current)])].sort();
    for (const rel of paths) {
      const want = files[rel];
      const have = current[rel];
      if (want === have) continue;
      const abs = `${scopeDir}/${rel}`;
      if (want === undefined) {
        Deno.removeSync(abs, { recursive: true });
        changed.push(rel);
        continue;
      }
      if (!this.has(want) || this.#corrupt(want)) {
        lost.push(rel);
        continue;
      }
      Deno.mkdirSync(abs.slice(0, abs.lastIndexOf("/")), { recursive: true });
      try {
        Deno.removeSync(abs, { recursive: true });
      } catch {
        // absent already
      }
      Deno.writeFileSync(abs, Deno.readFileSync(this.#path(want)));
      changed.push(rel);
    }
    return { changed, lost };
  }
}
