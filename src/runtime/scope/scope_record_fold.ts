/**
 * The scope record's on-disk forms read back and written out without ever holding a whole scope as one
 * string or one object per file: diffs of two sorted tables by a merge walk, scopes.jsonl folded line by line
 * into tables, snapshots streamed to and from snaps.json. Everything read is arrow's own file but is still
 * parsed defensively (a malformed entry is skipped, never trusted).
 *
 * @module
 */
import type { Rec } from "./blobs.ts";
import { EMPTY_TABLE, FileTable, tableOf } from "./fingerprint_table.ts";
import { ChunkWriter, GroupLines, objectOrder, readLines } from "./scope_record_io.ts";

/** Positions where two tables differ: of `now` (added or changed), of `prev` (gone). */
export interface TableDiff {
  changed: number[];
  removed: number[];
}

/**
 * A merge walk over two tables sorted by UTF-16 code units. `sameSize` also compares recorded sizes (the
 * record does; the guard compares content only).
 */
export function diffTables(prev: FileTable, now: FileTable, sameSize = true): TableDiff {
  const out: TableDiff = { changed: [], removed: [] };
  if (prev === now) return out;
  const [a, b] = [prev.paths, now.paths];
  let [i, j] = [0, 0];
  while (i < a.length || j < b.length) {
    const p = i < a.length ? a[i]! : null;
    const q = j < b.length ? b[j]! : null;
    if (q === null || (p !== null && p < q)) out.removed.push(i++);
    else if (p === null || q < p) out.changed.push(j++);
    else {
      if (prev.vals[i] !== now.vals[j] || (sameSize && prev.sizes[i] !== now.sizes[j])) out.changed.push(j);
      i++;
      j++;
    }
  }
  return out;
}

/** A recorded entry as scopes.jsonl writes it: `[what, size]`, or null for a path gone. */
export const entryJson = (t: FileTable, i: number): string => JSON.stringify([t.vals[i]!, t.sizes[i]!]);

/** An entry read back: a `{v, n}` or `[v, n]` with a string and a finite size, else undefined. */
function recOf(x: unknown): Rec | undefined {
  const [v, n] = Array.isArray(x) ? x : x && typeof x === "object" ? [(x as Rec).v, (x as Rec).n] : [];
  return typeof v === "string" && typeof n === "number" && Number.isFinite(n) ? { v, n } : undefined;
}

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);

/** Node → path → entry, folded from groups of lines (a later line's entry replaces an earlier one). */
export class Fold {
  readonly nodes = new Map<string, Map<string, Rec>>();

  /** Applies one group `{path: entry | null}` (`null`: the path is gone). */
  group(node: string, diff: unknown): void {
    if (!isObject(diff)) return;
    let files = this.nodes.get(node);
    if (!files) this.nodes.set(node, files = new Map());
    for (const rel in diff) {
      const x = diff[rel];
      if (x === null) files.delete(rel);
      else {
        const rec = recOf(x);
        if (rec) files.set(rel, rec);
      }
    }
  }

  /** The folded tables; each node's map is dropped as soon as its table is built. */
  tables(): Map<string, FileTable> {
    const out = new Map<string, FileTable>();
    for (const [node, files] of this.nodes) {
      out.set(node, files.size ? tableOf(files) : EMPTY_TABLE);
      this.nodes.delete(node);
    }
    return out;
  }
}

/** The tick a scopes.jsonl line belongs to, or null for a line that does not parse (a torn write). */
function parseTickLine(line: string): { tick: number; changes: unknown } | null {
  if (!line.startsWith('{"tick":')) return null;
  try {
    const r = JSON.parse(line) as { tick?: unknown; changes?: unknown };
    return typeof r.tick === "number" ? { tick: r.tick, changes: r.changes } : null;
  } catch {
    return null;
  }
}

/** Every scope as recorded up to `tick` (a tick's changes may span several lines). */
export function foldScopes(path: string, tick: number): Map<string, FileTable> | null {
  const fold = new Fold();
  let any = false;
  try {
    Deno.lstatSync(path);
  } catch {
    return null;
  }
  for (const line of readLines(path)) {
    const r = parseTickLine(line);
    if (!r) continue;
    if (r.tick > tick) break;
    any = true;
    if (!isObject(r.changes)) continue;
    for (const node in r.changes) fold.group(node, r.changes[node]);
  }
  return any ? fold.tables() : new Map();
}

/** Rewrites scopes.jsonl with its parsed lines up to `tick` only, streamed (torn and later lines dropped). */
export function truncateScopes(path: string, tick: number): void {
  try {
    Deno.lstatSync(path);
  } catch {
    return;
  }
  const out = ChunkWriter.replace(path);
  try {
    for (const line of readLines(path)) {
      const r = parseTickLine(line);
      if (r && r.tick <= tick) out.write(line + "\n");
    }
    out.close(true);
  } catch (e) {
    out.abort();
    throw e;
  }
}

/** One node's part of a tick: `size` entries, the k-th named `key(k)` with JSON value `json(k)`. */
export interface TickGroup {
  node: string;
  size: number;
  key(k: number): string;
  json(k: number): string;
}

/** Entries of a group in the order a plain object holding them would list them (what JSON.stringify wrote). */
function writeGroup(lines: GroupLines, g: TickGroup): void {
  lines.group(g.node);
  const ks = Array.from({ length: g.size }, (_, k) => k);
  for (const k of objectOrder(ks, (k) => g.key(k))) lines.entry(g.key(k), g.json(k));
}

/** Appends one tick's changes, streamed: byte for byte `JSON.stringify({ tick, changes })` below LINE_CHARS. */
export function appendTick(path: string, tick: number, groups: readonly TickGroup[]): void {
  const out = ChunkWriter.append(path);
  const lines = new GroupLines(out, `"tick":${tick}`, "changes");
  for (const g of objectOrder(groups, (x) => x.node)) writeGroup(lines, g);
  lines.end();
  out.close(false);
}

/** Header field of the streamed snapshot format (a legacy snaps.json is one object `{node: {path: {v, n}}}`). */
const SNAP_HEAD = '"snapshot":2';

/** Writes every snapshot, replacing snaps.json atomically (fsynced: a verified scope is what reverts use). */
export function writeSnaps(path: string, snaps: ReadonlyMap<string, FileTable>): void {
  const out = ChunkWriter.replace(path);
  try {
    const lines = new GroupLines(out, SNAP_HEAD, "snaps");
    for (const node of objectOrder([...snaps.keys()], (k) => k)) {
      const t = snaps.get(node)!;
      writeGroup(lines, { node, size: t.size, key: (i) => t.paths[i]!, json: (i) => entryJson(t, i) });
    }
    lines.end();
    out.close(true);
  } catch (e) {
    out.abort();
    throw e;
  }
}

/** Reads snaps.json, streamed or legacy; a missing or unreadable file holds no snapshot. */
export function readSnaps(path: string): Map<string, FileTable> {
  const fold = new Fold();
  for (const line of readLines(path)) {
    let r: unknown;
    try {
      r = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isObject(r)) continue;
    const groups = typeof r.snapshot === "number" && isObject(r.snaps) ? r.snaps : r;
    for (const node in groups) fold.group(node, groups[node]);
  }
  return fold.tables();
}
