/**
 * One scan of a scope as sorted parallel arrays (paths, what is at each, recorded sizes), immutable once
 * built. A scan that finds nothing changed hands back the same table, so a SENSE print, the scope record and
 * a verification snapshot share one copy of a scope instead of one map each.
 *
 * @module
 */
import type { FileMap, Rec } from "./blobs.ts";

/** True for the sha256 of a regular file's content (the other entries are `link:`, `special:`, ...). */
export const isContent = (v: string): boolean => v.length === 64 && /^[0-9a-f]{64}$/.test(v);

/** The order of Array.prototype.sort() on strings (UTF-16 code units), which the fingerprint is built on. */
export const byCodeUnits = (a: string, b: string): number => a < b ? -1 : a > b ? 1 : 0;

export class FileTable {
  /** Where the last lookup hit: lookups in sorted order (a diff, a guard check) then cost O(1) each. */
  #hint = 0;

  constructor(
    /** Relative paths, sorted by UTF-16 code units, without duplicates. */
    readonly paths: readonly string[],
    /** What is at each path (see ScopePrint.files). */
    readonly vals: readonly string[],
    /** Recorded size of each path: a regular file's hashed size, else 0. */
    readonly sizes: Float64Array,
    /** Targets of the symlinks among the paths. */
    readonly links: ReadonlyMap<string, string> = new Map(),
  ) {}

  get size(): number {
    return this.paths.length;
  }

  /** Position of `rel`, or -1. */
  indexOf(rel: string): number {
    const p = this.paths;
    const h = this.#hint;
    if (p[h] === rel) return h;
    if (p[h + 1] === rel) return this.#hint = h + 1;
    let lo = 0;
    let hi = p.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const m = p[mid]!;
      if (m < rel) lo = mid + 1;
      else if (m > rel) hi = mid - 1;
      else return this.#hint = mid;
    }
    return -1;
  }

  get(rel: string): string | undefined {
    const i = this.indexOf(rel);
    return i < 0 ? undefined : this.vals[i];
  }

  has(rel: string): boolean {
    return this.indexOf(rel) >= 0;
  }

  /** The recorded entry of `rel` ({v, n}), made on demand. */
  rec(rel: string): Rec | undefined {
    const i = this.indexOf(rel);
    return i < 0 ? undefined : { v: this.vals[i]!, n: this.sizes[i]! };
  }

  keys(): IterableIterator<string> {
    return this.paths[Symbol.iterator]();
  }

  *entries(): IterableIterator<[string, string]> {
    for (let i = 0; i < this.paths.length; i++) yield [this.paths[i]!, this.vals[i]!];
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

export const EMPTY_TABLE: FileTable = new FileTable([], [], new Float64Array(0));

/** Sizes of the regular files of a table, read like the `Map` scans used to return. */
export class SizeView {
  constructor(readonly table: FileTable) {}

  get(rel: string): number | undefined {
    const i = this.table.indexOf(rel);
    return i >= 0 && isContent(this.table.vals[i]!) ? this.table.sizes[i] : undefined;
  }

  has(rel: string): boolean {
    return this.get(rel) !== undefined;
  }
}

const views = new WeakMap<FileTable, FileMap>();

/**
 * A read-only `FileMap` over a table (path → {v, n}), for callers written against the plain-object record:
 * `Object.keys`, `in` and indexing work; entries are made on demand, nothing is copied.
 */
export function fileMapOf(t: FileTable): FileMap {
  let view = views.get(t);
  if (view) return view;
  const refuse = () => false;
  view = new Proxy({} as FileMap, {
    get: (_o, k) => typeof k === "string" ? t.rec(k) : undefined,
    has: (_o, k) => typeof k === "string" && t.has(k),
    ownKeys: () => [...t.paths],
    getOwnPropertyDescriptor: (_o, k) => {
      const value = typeof k === "string" ? t.rec(k) : undefined;
      return value && { value, enumerable: true, configurable: true, writable: false };
    },
    set: refuse,
    defineProperty: refuse,
    deleteProperty: refuse,
  });
  views.set(t, view);
  return view;
}

/** A table from unsorted entries (a record folded from scopes.jsonl, a legacy snapshot). */
export function tableOf(entries: Iterable<[string, Rec]>): FileTable {
  const list = [...entries].sort((a, b) => byCodeUnits(a[0], b[0]));
  const sizes = new Float64Array(list.length);
  list.forEach(([, r], i) => sizes[i] = r.n);
  return new FileTable(list.map((e) => e[0]), list.map((e) => e[1].v), sizes);
}
