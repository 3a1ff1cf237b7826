/**
 * Scope fingerprints at the cost of a stat walk: each file's (size, mtime, ctime, inode) is cached with its
 * sha256, and only files whose stat changed are read again. A file modified within the last scan's clock
 * granularity is "racy" (its stat could hide a second write) and is always rehashed, as git does.
 * Files stream through node:crypto in 256 KiB chunks of one reused buffer.
 *
 * Memory (scripts/bench_scope_memory.ts): a tree's files live in one slot store (typed arrays, see
 * SlotStore) and each scan yields a sorted, immutable FileTable; a scan that finds nothing changed returns
 * the previous table and fingerprint, so a tick copies nothing, and the sorted paths are kept until the set
 * of files changes. Speed (scripts/bench_fingerprint.ts): `Deno.lstatSync` costs a third of node:fs's
 * bigint `lstatSync`.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { EMPTY_FP } from "../../model/state.ts";
import { hashRegular } from "../safe_read.ts";
import { type DirCache, NO_SLOT, SlotStore } from "./fingerprint_store.ts";
import { byCodeUnits, EMPTY_TABLE, FileTable, isContent, SizeView } from "./fingerprint_table.ts";

export interface ScopePrint {
  fp: string;
  /**
   * Relative path → what is there, sorted: the sha256 of a regular file's content; `link:<sha256 of target>`
   * for a symlink (never followed); `special:<kind>` for a FIFO, socket or device (never opened);
   * `unreadable:<reason>` where the walk stopped (too deep, too long a path, too many entries or path
   * bytes, an error).
   */
  files: FileTable;
  /** Targets of the symlinks in `files`, so they can be recorded and restored. */
  links: ReadonlyMap<string, string>;
  /** Sizes of the regular files in `files`. */
  sizes: SizeView;
}

/**
 * Limits of one scan of one scope: a hostile scope gets an `unreadable:` entry saying where the walk
 * stopped, and what lies beyond is neither fingerprinted, recorded nor restorable. `entries` (files and
 * directories) and `pathBytes` (characters of all relative paths kept) bound what one scope can make the
 * fingerprinter hold: a few hundred bytes a file (scripts/bench_scope_memory.ts), so some 60 MB for a scope
 * at the limit, and at most 32 Mi characters of paths however long they are.
 */
export const SCAN_LIMITS = {
  depth: 64,
  path: 4096,
  entries: 200_000,
  pathBytes: 32 << 20,
  linkTarget: 4096,
} as const;

const RACY_MS = 50;
/** Lines hashed per update() call: few calls into node:crypto, small strings. */
const BLOCK = 512;

/** sha256 of a regular file's content (symlinks and special files are refused, never followed or opened). */
export function hashFile(path: string, _size?: number): string {
  const d = hashRegular(path);
  if ("error" in d) throw new Deno.errors.NotFound(`${path} ${d.error}`);
  return d.hash;
}

/** sha256 over sorted "path NUL entry" lines, shortened; the bytes hashed do not depend on BLOCK. */
function digest(paths: readonly string[], vals: readonly string[]): string {
  if (!paths.length) return EMPTY_FP;
  const h = createHash("sha256");
  for (let b = 0; b < paths.length; b += BLOCK) {
    let text = "";
    for (let i = b; i < Math.min(b + BLOCK, paths.length); i++) text += `${paths[i]}\0${vals[i]}\n`;
    h.update(text);
  }
  return h.digest("hex").slice(0, 20);
}

/** Fingerprint from a file map: sha256 over sorted "path NUL hash" lines, shortened. */
export function fingerprintOf(
  files: { keys(): Iterable<string>; get(k: string): string | undefined },
): string {
  const paths = [...files.keys()].sort();
  return digest(paths, paths.map((p) => files.get(p)!));
}

/** One scanned tree: its store, directory listings, and the table and print of its last scan. */
interface Tree {
  store: SlotStore;
  dirs: Map<string, DirCache>;
  /** Slot of each position of `print.files` (NO_SLOT for a note of where the walk stopped). */
  order: Uint32Array;
  print: ScopePrint;
  /** The notes of the last scan, as one string (notes are rare: only hostile scopes have them). */
  notesKey: string;
  scans: number;
}

/** What one walk found besides the store's slots. */
interface Walk {
  tree: Tree;
  scan: number;
  count: number;
  pathBytes: number;
  /** Slots seen this scan that are not in the tree's table yet. */
  fresh: number[];
  /** Slots of files gone, released once the new table no longer refers to them. */
  gone: number[];
  notes: Map<string, string>;
}

export class Fingerprinter {
  #trees = new Map<string, Tree>();
  #lastScanMs = 0;
  /** Files read and hashed (not served from cache) since construction. */
  rehashed = 0;

  /** Files of `dir` the fingerprinter holds state for (its slots in use), for tests and benchmarks. */
  held(dir: string): number {
    return this.#trees.get(dir)?.store.live ?? 0;
  }

  /** Fingerprints a directory tree (a missing directory is empty). Never follows a symlink, never blocks. */
  scan(dir: string): ScopePrint {
    const startMs = Date.now();
    let tree = this.#trees.get(dir);
    if (!tree) {
      tree = {
        store: new SlotStore(),
        dirs: new Map(),
        order: new Uint32Array(0),
        print: {
          fp: EMPTY_FP,
          files: EMPTY_TABLE,
          links: EMPTY_TABLE.links,
          sizes: new SizeView(EMPTY_TABLE),
        },
        notesKey: "",
        scans: 0,
      };
      this.#trees.set(dir, tree);
    }
    const w: Walk = {
      tree,
      scan: ++tree.scans,
      count: 0,
      pathBytes: 0,
      fresh: [],
      gone: [],
      notes: new Map(),
    };
    let root: Deno.FileInfo | null = null;
    try {
      root = Deno.lstatSync(dir);
    } catch {
      root = null;
    }
    if (root?.isDirectory) this.#walk(w, dir, "", 0);
    else if (root) {
      w.notes.set(".", `unreadable:the scope itself is a ${root.isSymlink ? "symlink" : "non-directory"}`);
    }
    for (const [abs, cache] of tree.dirs) {
      if (cache.seen === w.scan) continue;
      // A directory gone (or not reached): its files are gone from the tree.
      for (const slot of cache.slots.values()) w.gone.push(slot);
      tree.dirs.delete(abs);
    }
    this.#lastScanMs = startMs;
    const notesKey = [...w.notes].join("\0");
    if (w.gone.length || w.fresh.length || notesKey !== tree.notesKey || notesKey) {
      this.#rebuild(w);
      tree.notesKey = notesKey;
    } else this.#refresh(tree);
    tree.store.release(w.gone);
    return tree.print;
  }

  /** Walks one directory: lists it, brings each file's slot up to date, forgets the names that went. */
  #walk(w: Walk, abs: string, rel: string, depth: number): void {
    const { tree } = w;
    const stop = (why: string): void => void w.notes.set(rel || ".", `unreadable:${why}`);
    let list: Iterable<Deno.DirEntry>;
    try {
      list = Deno.readDirSync(abs);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) return;
      return stop(`cannot list (${(e as Error).name})`);
    }
    let cache = tree.dirs.get(abs);
    if (!cache) tree.dirs.set(abs, cache = { slots: new Map(), seen: 0 });
    cache.seen = w.scan;
    const { store } = tree;
    try {
      for (const d of list) {
        if (++w.count > SCAN_LIMITS.entries) return stop("too many entries");
        const length = rel.length + (rel ? 1 : 0) + d.name.length;
        if (length > SCAN_LIMITS.path) {
          stop("path too long");
          continue;
        }
        if ((w.pathBytes += length) > SCAN_LIMITS.pathBytes) return stop("too many path bytes");
        if (d.isDirectory) {
          const childRel = rel ? `${rel}/${d.name}` : d.name;
          if (depth >= SCAN_LIMITS.depth) w.notes.set(childRel, "unreadable:too deep");
          else this.#walk(w, `${abs}/${d.name}`, childRel, depth + 1);
          continue;
        }
        let slot = cache.slots.get(d.name);
        if (slot === undefined) {
          slot = store.alloc(rel ? `${rel}/${d.name}` : d.name);
          cache.slots.set(d.name, slot);
        }
        const target = this.#check(store, slot, `${abs}/${d.name}`);
        if (target === false) continue;
        store.mark[slot] = w.scan;
        if (!store.placed[slot]) w.fresh.push(slot);
        if (typeof target === "string") store.targets.set(slot, target);
      }
    } catch (e) {
      stop(`cannot list (${(e as Error).name})`);
    } finally {
      // Names not seen this scan (gone, or past a limit) are forgotten; their slots go once unplaced.
      for (const [name, slot] of cache.slots) {
        if (store.mark[slot] === w.scan) continue;
        cache.slots.delete(name);
        w.gone.push(slot);
      }
    }
  }

  /** Same files as the last scan: a new table only when an entry changed, sharing the sorted paths. */
  #refresh(tree: Tree): void {
    const { store, order } = tree;
    const old = tree.print.files;
    let vals: string[] | null = null;
    for (let i = 0; i < order.length; i++) {
      const v = store.hash[order[i]!]!;
      if (vals) vals.push(v);
      else if (v !== old.vals[i]) (vals = old.vals.slice(0, i)).push(v);
    }
    if (!vals) return;
    this.#publish(tree, old.paths, vals);
  }

  /** The set of files changed: merges the kept paths (still sorted) with the new ones and the notes. */
  #rebuild(w: Walk): void {
    const { tree } = w;
    const { store } = tree;
    const kept = Array.from(tree.order).filter((s) => s !== NO_SLOT && store.mark[s] === w.scan);
    for (const s of tree.order) if (s !== NO_SLOT) store.placed[s] = 0;
    const fresh = w.fresh.sort((a, b) => byCodeUnits(store.rel[a]!, store.rel[b]!));
    const notes = [...w.notes.keys()].sort();
    const order: number[] = [];
    const paths: string[] = [];
    const vals: string[] = [];
    let [k, f, n] = [0, 0, 0];
    for (;;) {
      const a = k < kept.length ? store.rel[kept[k]!]! : null;
      const b = f < fresh.length ? store.rel[fresh[f]!]! : null;
      const c = n < notes.length ? notes[n]! : null;
      const file = a === null ? b : b === null || a < b ? a : b;
      if (file === null && c === null) break;
      if (file === null || (c !== null && c < file)) {
        order.push(NO_SLOT);
        paths.push(c!);
        vals.push(w.notes.get(c!)!);
        n++;
        continue;
      }
      // A note never names a file (it names a directory or the root); were it to, the file wins.
      if (c === file) n++;
      const slot = file === a ? kept[k++]! : fresh[f++]!;
      order.push(slot);
      store.placed[slot] = 1;
      paths.push(file);
      vals.push(store.hash[slot]!);
    }
    tree.order = Uint32Array.from(order);
    this.#publish(tree, paths, vals);
  }

  #publish(tree: Tree, paths: readonly string[], vals: readonly string[]): void {
    const { store, order } = tree;
    const sizes = new Float64Array(order.length);
    for (let i = 0; i < order.length; i++) {
      const s = order[i]!;
      if (s !== NO_SLOT && isContent(vals[i]!)) sizes[i] = store.size[s]!;
    }
    let links: Map<string, string> | undefined;
    for (const [slot, target] of store.targets) {
      if (!store.placed[slot]) continue;
      (links ??= new Map()).set(store.rel[slot]!, target);
    }
    const files = new FileTable(paths, vals, sizes, links);
    tree.print = { fp: digest(paths, vals), files, links: files.links, sizes: new SizeView(files) };
  }

  /**
   * Brings a slot up to date from an lstat. False when the file vanished after the directory was listed;
   * the link target for a symlink; true otherwise.
   */
  #check(s: SlotStore, slot: number, path: string): boolean | string {
    let st: Deno.FileInfo;
    try {
      st = Deno.lstatSync(path);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return false;
      s.hash[slot] = `unreadable:${(err as Error).name}`;
      return true;
    }
    const mtime = st.mtime?.getTime() ?? 0;
    const ctime = st.ctime?.getTime() ?? 0;
    const ino = st.ino ?? 0;
    const racy = mtime + RACY_MS >= this.#lastScanMs;
    const same = s.size[slot] === st.size && s.mtime[slot] === mtime && s.ctime[slot] === ctime &&
      s.ino[slot] === ino;
    const seen = () => {
      s.size[slot] = st.size;
      s.mtime[slot] = mtime;
      s.ctime[slot] = ctime;
      s.ino[slot] = ino;
    };
    if (st.isSymlink) {
      const known = s.targets.get(slot);
      if (!racy && same && known !== undefined) return known;
      let target: string;
      try {
        target = Deno.readLinkSync(path).slice(0, SCAN_LIMITS.linkTarget);
      } catch {
        return false;
      }
      const v = `link:${createHash("sha256").update(target).digest("hex")}`;
      if (v !== s.hash[slot]) s.hash[slot] = v;
      seen();
      return target;
    }
    s.targets.delete(slot);
    if (!st.isFile) {
      const kind = st.isFifo
        ? "fifo"
        : st.isSocket
        ? "socket"
        : st.isCharDevice
        ? "chardev"
        : st.isBlockDevice
        ? "blockdev"
        : "unknown";
      if (s.hash[slot] !== `special:${kind}`) s.hash[slot] = `special:${kind}`;
      seen();
      return true;
    }
    if (!racy && same && isContent(s.hash[slot]!)) return true;
    this.rehashed++;
    const d = hashRegular(path);
    if ("error" in d) {
      if (d.error === "is missing") return false;
      // Swapped for something else between the lstat and the open: look again next scan.
      s.hash[slot] = `unreadable:${d.error}`;
      s.size[slot] = -1;
      return true;
    }
    // The same content keeps its string: tables compare entries by identity first.
    if (d.hash !== s.hash[slot]) s.hash[slot] = d.hash;
    // The size that was hashed: a file that grew between the lstat and the read is re-read next scan.
    s.size[slot] = d.size;
    s.mtime[slot] = mtime;
    s.ctime[slot] = ctime;
    s.ino[slot] = ino;
    return true;
  }
}
