/**
 * Scope fingerprints at the cost of a stat walk: each file's (size, mtime, ctime, inode) is cached with its
 * sha256, and only files whose stat changed are read again. A file modified within the last scan's clock
 * granularity is "racy" (its stat could hide a second write) and is always rehashed, as git does.
 * Files stream through node:crypto in 256 KiB chunks of one reused buffer.
 *
 * Speed (scripts/bench_fingerprint.ts): `Deno.lstatSync` costs a third of node:fs's bigint `lstatSync`,
 * and each tree's sorted paths and digest input are kept between scans (see TreeDigest), so a tick's scan is
 * little more than the stat walk itself.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { EMPTY_FP } from "../model/state.ts";

interface Entry {
  path: string;
  rel: string;
  size: number;
  mtime: number;
  ctime: number;
  ino: number;
  hash: string;
}

export interface ScopePrint {
  fp: string;
  /** Relative path → sha256 of the content. */
  files: Map<string, string>;
}

// 256 KiB: the buffer stays in the CPU cache between the read and the hash (4 MiB chunks measured 25% slower).
const CHUNK = 256 << 10;
const RACY_MS = 50;
let buffer: Uint8Array | null = null;

/** sha256 of a file's content, read to its end (`_size`, which some callers pass, is not needed). */
export function hashFile(path: string, _size?: number): string {
  const h = createHash("sha256");
  buffer ??= new Uint8Array(CHUNK);
  using f = Deno.openSync(path, { read: true });
  for (;;) {
    const n = f.readSync(buffer);
    if (n === null || n === 0) break;
    h.update(n === CHUNK ? buffer : buffer.subarray(0, n));
  }
  return h.digest("hex");
}

/** Fingerprint from a file map: sha256 over sorted "path NUL hash" lines, shortened. */
export function fingerprintOf(files: ReadonlyMap<string, string>): string {
  return new TreeDigest().fp(files);
}

const BLOCK = 256;

/**
 * The fingerprint of one tree, kept between scans: its sorted paths (re-sorted only when the set of paths
 * changes) and the digest input cut into blocks of lines, so a tick that changed one file rebuilds one block
 * of text instead of all of it. The bytes hashed are the same as for a fresh sort.
 */
class TreeDigest {
  #order: string[] = [];
  #blocks: { hashes: (string | undefined)[]; text: string }[] = [];

  fp(files: ReadonlyMap<string, string>): string {
    if (files.size === 0) return EMPTY_FP;
    if (this.#order.length !== files.size || !this.#order.every((rel) => files.has(rel))) {
      this.#order = [...files.keys()].sort();
      this.#blocks = [];
    }
    const h = createHash("sha256");
    for (let b = 0; b * BLOCK < this.#order.length; b++) {
      const keys = this.#order.slice(b * BLOCK, (b + 1) * BLOCK);
      let block = this.#blocks[b];
      if (!block || keys.some((rel, j) => files.get(rel) !== block!.hashes[j])) {
        const hashes = keys.map((rel) => files.get(rel));
        block = { hashes, text: keys.map((rel, j) => `${rel}\0${hashes[j]}\n`).join("") };
        this.#blocks[b] = block;
      }
      h.update(block.text);
    }
    return h.digest("hex").slice(0, 20);
  }
}

export class Fingerprinter {
  /** Per directory, per file name: the last stat seen and the hash it had. */
  #dirs = new Map<string, Map<string, Entry>>();
  #trees = new Map<string, TreeDigest>();
  #lastScanMs = 0;
  /** Files read and hashed (not served from cache) since construction. */
  rehashed = 0;

  /** Fingerprints a directory tree (a missing directory is empty). */
  scan(dir: string): ScopePrint {
    const startMs = Date.now();
    const files = new Map<string, string>();
    const walk = (abs: string, rel: string) => {
      let it: Iterable<Deno.DirEntry>;
      try {
        it = Deno.readDirSync(abs);
      } catch (e) {
        if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) return;
        throw e;
      }
      let known = this.#dirs.get(abs);
      if (!known) this.#dirs.set(abs, known = new Map());
      for (const d of it) {
        if (d.isDirectory) {
          walk(`${abs}/${d.name}`, rel ? `${rel}/${d.name}` : d.name);
          continue;
        }
        let e = known.get(d.name);
        // The relative path's length tells under which root an entry was made (the same directory can be
        // scanned as part of different trees). Keeping the path strings lets later scans skip rebuilding them.
        if (!e || e.rel.length !== rel.length + d.name.length + (rel ? 1 : 0)) {
          e = {
            path: `${abs}/${d.name}`,
            rel: rel ? `${rel}/${d.name}` : d.name,
            size: -1,
            mtime: 0,
            ctime: 0,
            ino: 0,
            hash: "",
          };
          known.set(d.name, e);
        }
        if (this.#check(e, d.isSymlink)) files.set(e.rel, e.hash);
      }
    };
    walk(dir, "");
    this.#lastScanMs = startMs;
    let tree = this.#trees.get(dir);
    if (!tree) this.#trees.set(dir, tree = new TreeDigest());
    return { fp: tree.fp(files), files };
  }

  /** Brings `e` up to date; false when the file vanished after the directory was listed (renamed away). */
  #check(e: Entry, symlink: boolean): boolean {
    let st: Deno.FileInfo;
    try {
      st = Deno.lstatSync(e.path);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return false;
      throw err;
    }
    const mtime = st.mtime?.getTime() ?? 0;
    const ctime = st.ctime?.getTime() ?? 0;
    const ino = st.ino ?? 0;
    const racy = mtime + RACY_MS >= this.#lastScanMs;
    if (!racy && e.size === st.size && e.mtime === mtime && e.ctime === ctime && e.ino === ino) return true;
    this.rehashed++;
    try {
      e.hash = symlink
        ? createHash("sha256").update("symlink:" + Deno.readLinkSync(e.path)).digest("hex")
        : hashFile(e.path);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return false;
      throw err;
    }
    [e.size, e.mtime, e.ctime, e.ino] = [st.size, mtime, ctime, ino];
    return true;
  }
}
