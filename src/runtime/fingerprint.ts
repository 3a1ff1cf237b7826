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
import { hashRegular } from "./safe_read.ts";

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
  /**
   * Relative path → what is there: the sha256 of a regular file's content; `link:<sha256 of target>` for a
   * symlink (never followed); `special:<kind>` for a FIFO, socket or device (never opened);
   * `unreadable:<reason>` where the walk stopped (too deep, too long a path, too many entries, an error).
   */
  files: Map<string, string>;
  /** Targets of the symlinks in `files`, so they can be recorded and restored. */
  links: Map<string, string>;
  /** Sizes of the regular files in `files`. */
  sizes: Map<string, number>;
}

/** Limits of one scan of one scope: a hostile scope gets an entry saying where the walk stopped. */
export const SCAN_LIMITS = { depth: 64, path: 4096, entries: 200_000, linkTarget: 4096 } as const;

const RACY_MS = 50;

/** sha256 of a regular file's content (symlinks and special files are refused, never followed or opened). */
export function hashFile(path: string, _size?: number): string {
  const d = hashRegular(path);
  if ("error" in d) throw new Deno.errors.NotFound(`${path} ${d.error}`);
  return d.hash;
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

  /** Fingerprints a directory tree (a missing directory is empty). Never follows a symlink, never blocks. */
  scan(dir: string): ScopePrint {
    const startMs = Date.now();
    const files = new Map<string, string>();
    const links = new Map<string, string>();
    const sizes = new Map<string, number>();
    let count = 0;
    const stop = (rel: string, why: string): void => void files.set(rel || ".", `unreadable:${why}`);
    const walk = (abs: string, rel: string, depth: number): void => {
      let list: Deno.DirEntry[];
      try {
        list = [...Deno.readDirSync(abs)];
      } catch (e) {
        if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) return;
        return stop(rel, `cannot list (${(e as Error).name})`);
      }
      let known = this.#dirs.get(abs);
      if (!known) this.#dirs.set(abs, known = new Map());
      for (const d of list) {
        const childRel = rel ? `${rel}/${d.name}` : d.name;
        if (++count > SCAN_LIMITS.entries) return stop(rel, "too many entries");
        if (childRel.length > SCAN_LIMITS.path) {
          stop(rel, "path too long");
          continue;
        }
        if (d.isDirectory) {
          if (depth >= SCAN_LIMITS.depth) stop(childRel, "too deep");
          else walk(`${abs}/${d.name}`, childRel, depth + 1);
          continue;
        }
        let e = known.get(d.name);
        // The relative path's length tells under which root an entry was made (the same directory can be
        // scanned as part of different trees). Keeping the path strings lets later scans skip rebuilding them.
        if (!e || e.rel.length !== childRel.length) {
          e = { path: `${abs}/${d.name}`, rel: childRel, size: -1, mtime: 0, ctime: 0, ino: 0, hash: "" };
          known.set(d.name, e);
        }
        const target = this.#check(e);
        if (target === false) continue;
        files.set(e.rel, e.hash);
        if (typeof target === "string") links.set(e.rel, target);
        else if (e.size >= 0 && /^[0-9a-f]{64}$/.test(e.hash)) sizes.set(e.rel, e.size);
      }
    };
    let root: Deno.FileInfo | null = null;
    try {
      root = Deno.lstatSync(dir);
    } catch {
      root = null;
    }
    if (root?.isDirectory) walk(dir, "", 0);
    else if (root) stop("", `the scope itself is a ${root.isSymlink ? "symlink" : "non-directory"}`);
    this.#lastScanMs = startMs;
    let tree = this.#trees.get(dir);
    if (!tree) this.#trees.set(dir, tree = new TreeDigest());
    return { fp: tree.fp(files), files, links, sizes };
  }

  /**
   * Brings `e` up to date from an lstat. False when the entry vanished after the directory was listed;
   * the link target for a symlink; true otherwise.
   */
  #check(e: Entry): boolean | string {
    let st: Deno.FileInfo;
    try {
      st = Deno.lstatSync(e.path);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return false;
      e.hash = `unreadable:${(err as Error).name}`;
      return true;
    }
    const mtime = st.mtime?.getTime() ?? 0;
    const ctime = st.ctime?.getTime() ?? 0;
    const ino = st.ino ?? 0;
    const racy = mtime + RACY_MS >= this.#lastScanMs;
    const same = e.size === st.size && e.mtime === mtime && e.ctime === ctime && e.ino === ino;
    if (st.isSymlink) {
      let target: string;
      try {
        target = Deno.readLinkSync(e.path).slice(0, SCAN_LIMITS.linkTarget);
      } catch {
        return false;
      }
      e.hash = `link:${createHash("sha256").update(target).digest("hex")}`;
      [e.size, e.mtime, e.ctime, e.ino] = [st.size, mtime, ctime, ino];
      return target;
    }
    if (!st.isFile) {
      e.hash = `special:${
        st.isFifo
          ? "fifo"
          : st.isSocket
          ? "socket"
          : st.isCharDevice
          ? "chardev"
          : st.isBlockDevice
          ? "blockdev"
          : "unknown"
      }`;
      [e.size, e.mtime, e.ctime, e.ino] = [st.size, mtime, ctime, ino];
      return true;
    }
    if (!racy && same && /^[0-9a-f]{64}$/.test(e.hash)) return true;
    this.rehashed++;
    const d = hashRegular(e.path);
    if ("error" in d) {
      if (d.error === "is missing") return false;
      // Swapped for something else between the lstat and the open: look again next scan.
      e.hash = `unreadable:${d.error}`;
      e.size = -1;
      return true;
    }
    e.hash = d.hash;
    // The size that was hashed: a file that grew between the lstat and the read is re-read next scan.
    [e.size, e.mtime, e.ctime, e.ino] = [d.size, mtime, ctime, ino];
    return true;
  }
}
