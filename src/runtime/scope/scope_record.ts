/**
 * The record of every scope: per tick, what changed in each scope (appended to .arrow/scopes.jsonl) with the
 * contents in the blob store; plus the snapshot taken when a node is verified. It is what a foreign write is
 * reverted from and what a resumed run restores every scope to.
 *
 * Blobs grow with changes, not with time: a file that only grew since its last record (metrics.jsonl, a log)
 * is not copied again — cutting it back to its recorded length restores it.
 *
 * Memory (scripts/bench_scope_memory.ts): a scope is held as the immutable FileTable of the scan that
 * recorded it — the fingerprinter's own sorted arrays, shared, never an object per file — so the record, the
 * snapshot and the last SENSE print of a scope are one copy. A scope whose scan changed nothing is the same
 * table and costs no comparison; changes are found by a merge walk and streamed out in bounded lines.
 *
 * @module
 */
import type { NodeId, PlanNode } from "../../graph/types.ts";
import type { RunState } from "../../model/state.ts";
import { BlobStore, type FileMap, type Rec, removeAny } from "./blobs.ts";
import type { Fingerprinter, ScopePrint } from "./fingerprint.ts";
import { EMPTY_TABLE, fileMapOf, type FileTable, isContent } from "./fingerprint_table.ts";
import { hashRegular } from "../safe_read.ts";
import {
  appendTick,
  diffTables,
  entryJson,
  foldScopes,
  readSnaps,
  type TickGroup,
  truncateScopes,
  writeSnaps,
} from "./scope_record_fold.ts";

const recAt = (t: FileTable, i: number): Rec => ({ v: t.vals[i]!, n: t.sizes[i]! });

export class ScopeRecord {
  readonly blobs: BlobStore;
  /** Every scope as recorded at the end of the last tick. */
  #scopes = new Map<NodeId, FileTable>();
  /** Scopes as they were when their node was verified. */
  #snaps: Map<NodeId, FileTable>;

  constructor(
    readonly runDir: string,
    readonly fingerprints: Fingerprinter,
    readonly scopeOf: (n: PlanNode) => string,
  ) {
    this.blobs = new BlobStore(`${runDir}/.arrow/blobs`);
    this.#snaps = readSnaps(`${runDir}/.arrow/snaps.json`);
  }

  #view: Record<NodeId, FileMap> | null = null;

  /**
   * Every scope as recorded, read-only (path → {v, n}, made on demand, nothing copied). Slow on a huge
   * scope (a proxy per table): the guard should use changed().
   */
  get scopes(): Record<NodeId, FileMap> {
    return this.#view ??= Object.fromEntries([...this.#scopes].map(([id, t]) => [id, fileMapOf(t)]));
  }

  #setRecord(id: NodeId, t: FileTable): void {
    if (this.#scopes.get(id) === t) return;
    this.#scopes.set(id, t);
    this.#view = null;
  }

  /** Verified scopes' snapshots, read-only, as `scopes`. */
  get snaps(): Record<NodeId, FileMap> {
    return Object.fromEntries([...this.#snaps].map(([id, t]) => [id, fileMapOf(t)]));
  }

  /** The recorded table of a scope (empty before its first record). */
  recorded(id: NodeId): FileTable {
    return this.#scopes.get(id) ?? EMPTY_TABLE;
  }

  /**
   * Run-relative paths (sorted) whose content in `print` differs from the scope's record: what the guard
   * reports for an idle scope. Sizes are not compared (a file's content decides).
   */
  changed(n: PlanNode, print: ScopePrint): string[] {
    const before = this.recorded(n.id);
    const d = diffTables(before, print.files, false);
    const rels = [...d.removed.map((i) => before.paths[i]!), ...d.changed.map((j) => print.files.paths[j]!)];
    return rels.sort().map((rel) => `nodes/${n.scope}/${rel}`);
  }

  #scan(n: PlanNode, print?: ScopePrint): ScopePrint {
    return print ?? this.fingerprints.scan(this.scopeOf(n));
  }

  /** Keeps what is needed to put `rel` back later; `prev` is its last recorded state. */
  #keep(n: PlanNode, rel: string, rec: Rec, print: ScopePrint, prev: Rec | undefined): void {
    const abs = `${this.scopeOf(n)}/${rel}`;
    if (rec.v.startsWith("link:")) {
      const target = print.links.get(rel);
      if (target !== undefined) this.blobs.putLink(rec.v, target);
      return;
    }
    if (!isContent(rec.v)) return;
    // A file that only grew since its last record (a log, metrics.jsonl) is restored by cutting it back;
    // its earlier versions are not kept again, or an appended file would cost the square of its size.
    if (prev && isContent(prev.v) && prev.n <= rec.n) {
      const head = hashRegular(abs, prev.n);
      if (!("error" in head) && head.prefix === prev.v) return;
    }
    this.blobs.put(abs, rec.v, rec.n);
  }

  /**
   * Records the scopes that may legitimately have changed this tick — those of nodes that ran, or that the
   * engine itself touched (started, stopped, reverted, snapshotted) — at the end of a tick. Any other
   * scope keeps its record, so a foreign write landing after SENSE is still flagged by the next SENSE.
   * `touched` undefined records every scope (tick 0).
   */
  record(state: RunState, touched?: ReadonlySet<NodeId>): void {
    const groups: TickGroup[] = [];
    for (const n of state.plan.nodes) {
      if (!state.nodes[n.id]!.spawned) continue;
      const prev = this.#scopes.get(n.id);
      if (touched && !touched.has(n.id) && prev) continue;
      const print = this.#scan(n);
      const now = print.files;
      const before = prev ?? EMPTY_TABLE;
      const { changed, removed } = diffTables(before, now);
      if (changed.length) {
        // Positions of `before` in step with `changed` (both sorted), for the grown-file check.
        let i = 0;
        for (const j of changed) {
          const rel = now.paths[j]!;
          while (i < before.paths.length && before.paths[i]! < rel) i++;
          const was = before.paths[i] === rel ? recAt(before, i) : undefined;
          this.#keep(n, rel, recAt(now, j), print, was);
        }
      }
      if (changed.length || removed.length || !prev) {
        // Added and changed paths first, then the ones gone: the order scopes.jsonl has always had.
        groups.push({
          node: n.id,
          size: changed.length + removed.length,
          key: (k) =>
            k < changed.length ? now.paths[changed[k]!]! : before.paths[removed[k - changed.length]!]!,
          json: (k) => k < changed.length ? entryJson(now, changed[k]!) : "null",
        });
      }
      this.#setRecord(n.id, now);
    }
    if (state.tick === 0 || groups.length) {
      appendTick(`${this.runDir}/.arrow/scopes.jsonl`, state.tick, groups);
    }
  }

  /** Keeps a verified scope's content (as SENSE saw it when the claim was judged) to revert foreign writes from. */
  snapshot(n: PlanNode, print?: ScopePrint): void {
    const p = this.#scan(n, print);
    const t = p.files;
    for (let i = 0; i < t.paths.length; i++) this.#keep(n, t.paths[i]!, recAt(t, i), p, undefined);
    this.#snaps.set(n.id, t);
    writeSnaps(`${this.runDir}/.arrow/snaps.json`, this.#snaps);
  }

  /** What a path of a scope should hold: its snapshot when verified, else its last record. */
  #target(n: PlanNode): FileTable {
    return this.#snaps.get(n.id) ?? this.recorded(n.id);
  }

  /** Run-relative paths of `n` (as the guard reports them) whose recorded content can be put back. */
  restorable(n: PlanNode, paths: readonly string[]): string[] {
    const prefix = `nodes/${n.scope}/`;
    const target = this.#target(n);
    return paths.filter((p) => {
      if (!p.startsWith(prefix)) return false;
      const rel = p.slice(prefix.length);
      const want = target.rec(rel);
      return !want || this.blobs.canRestore(`${this.scopeOf(n)}/${rel}`, want);
    });
  }

  /**
   * Restores the given run-relative paths of a scope from its snapshot (or its last record), then re-hashes
   * them: returns the paths that do not hold their recorded content afterwards.
   */
  revert(n: PlanNode, paths: readonly string[]): string[] {
    const prefix = `nodes/${n.scope}/`;
    const rels = paths.filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length));
    const target = this.#target(n);
    for (const rel of rels) {
      const abs = `${this.scopeOf(n)}/${rel}`;
      const want = target.rec(rel);
      if (!want) removeAny(abs);
      else this.blobs.restoreOne(abs, want);
    }
    const after = this.#scan(n).files;
    return rels.filter((rel) => after.get(rel) !== target.get(rel)).map((rel) => `${prefix}${rel}`);
  }

  /** Makes every scope match its record at the state's tick (after a crash); returns what could not be restored. */
  restore(state: RunState): string[] {
    const rec = foldScopes(`${this.runDir}/.arrow/scopes.jsonl`, state.tick);
    if (!rec) return ["(no scope record)"];
    const lost: string[] = [];
    for (const n of state.plan.nodes) {
      if (!state.nodes[n.id]!.spawned) continue;
      const want = rec.get(n.id) ?? EMPTY_TABLE;
      rec.delete(n.id);
      const have = this.#scan(n).files;
      const abs = (rel: string) => `${this.scopeOf(n)}/${rel}`;
      // The union of both path lists in sorted order, as a merge walk: extra paths go, others are put back.
      let [i, j] = [0, 0];
      while (i < want.size || j < have.size) {
        const w = i < want.size ? want.paths[i]! : null;
        const h = j < have.size ? have.paths[j]! : null;
        if (h !== null && (w === null || h < w)) {
          removeAny(abs(h));
          j++;
          continue;
        }
        const same = h === w && want.vals[i] === have.vals[j] && want.sizes[i] === have.sizes[j];
        if (h === w) j++;
        if (!same && !this.blobs.restoreOne(abs(w!), recAt(want, i))) lost.push(`nodes/${n.scope}/${w}`);
        i++;
      }
      this.#setRecord(n.id, want);
    }
    return lost;
  }

  /** Drops journal lines after `tick` (they describe a tick the crash left unpersisted). */
  truncate(tick: number): void {
    truncateScopes(`${this.runDir}/.arrow/scopes.jsonl`, tick);
  }
}
