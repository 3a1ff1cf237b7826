/**
 * The record of every scope: per tick, what changed in each scope (appended to .arrow/scopes.jsonl) with the
 * contents in the blob store; plus the snapshot taken when a node is verified. It is what a foreign write is
 * reverted from and what a resumed run restores every scope to.
 *
 * Blobs grow with changes, not with time: a file that only grew since its last record (metrics.jsonl, a log)
 * is not copied again — cutting it back to its recorded length restores it.
 *
 * @module
 */
import type { NodeId, PlanNode } from "../graph/types.ts";
import type { RunState } from "../model/state.ts";
import { appendDurable, writeAtomic } from "./atomic.ts";
import { BlobStore, type FileMap, type Rec, removeAny } from "./blobs.ts";
import type { Fingerprinter, ScopePrint } from "./fingerprint.ts";
import { hashRegular } from "./safe_read.ts";

type Changes = Record<NodeId, Record<string, [string, number] | null>>;

export class ScopeRecord {
  readonly blobs: BlobStore;
  /** Every scope as recorded at the end of the last tick. */
  scopes: Record<NodeId, FileMap> = {};
  /** Scopes as they were when their node was verified. */
  snaps: Record<NodeId, FileMap> = {};

  constructor(
    readonly runDir: string,
    readonly fingerprints: Fingerprinter,
    readonly scopeOf: (n: PlanNode) => string,
  ) {
    this.blobs = new BlobStore(`${runDir}/.arrow/blobs`);
    try {
      this.snaps = JSON.parse(Deno.readTextFileSync(`${runDir}/.arrow/snaps.json`));
    } catch {
      this.snaps = {};
    }
  }

  /** A scope as it is now, with sizes; `print` is a scan already made this tick. */
  current(n: PlanNode, print?: ScopePrint): { map: FileMap; print: ScopePrint } {
    const p = print ?? this.fingerprints.scan(this.scopeOf(n));
    const map: FileMap = {};
    for (const rel of [...p.files.keys()].sort()) {
      map[rel] = { v: p.files.get(rel)!, n: p.sizes.get(rel) ?? 0 };
    }
    return { map, print: p };
  }

  /** Keeps what is needed to put `rel` back later; `prev` is its last recorded state. */
  #keep(n: PlanNode, rel: string, rec: Rec, print: ScopePrint, prev: Rec | undefined): void {
    const abs = `${this.scopeOf(n)}/${rel}`;
    if (rec.v.startsWith("link:")) {
      const target = print.links.get(rel);
      if (target !== undefined) this.blobs.putLink(rec.v, target);
      return;
    }
    if (!/^[0-9a-f]{64}$/.test(rec.v)) return;
    // A file that only grew since its last record (a log, metrics.jsonl) is restored by cutting it back;
    // its earlier versions are not kept again, or an appended file would cost the square of its size.
    if (prev && /^[0-9a-f]{64}$/.test(prev.v) && prev.n <= rec.n) {
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
    const changes: Changes = {};
    for (const n of state.plan.nodes) {
      if (!state.nodes[n.id]!.spawned) continue;
      if (touched && !touched.has(n.id) && n.id in this.scopes) continue;
      const { map: now, print } = this.current(n);
      const prev = this.scopes[n.id] ?? {};
      const diff: Record<string, [string, number] | null> = {};
      for (const [rel, rec] of Object.entries(now)) {
        if (prev[rel]?.v === rec.v && prev[rel]?.n === rec.n) continue;
        this.#keep(n, rel, rec, print, prev[rel]);
        diff[rel] = [rec.v, rec.n];
      }
      for (const rel of Object.keys(prev)) if (!(rel in now)) diff[rel] = null;
      if (Object.keys(diff).length || !(n.id in this.scopes)) changes[n.id] = diff;
      this.scopes[n.id] = now;
    }
    if (state.tick === 0 || Object.keys(changes).length) {
      appendDurable(
        `${this.runDir}/.arrow/scopes.jsonl`,
        JSON.stringify({ tick: state.tick, changes }) + "\n",
        false,
      );
    }
  }

  /** Keeps a verified scope's content (as SENSE saw it when the claim was judged) to revert foreign writes from. */
  snapshot(n: PlanNode, print?: ScopePrint): void {
    const { map, print: p } = this.current(n, print);
    for (const [rel, rec] of Object.entries(map)) this.#keep(n, rel, rec, p, undefined);
    this.snaps[n.id] = map;
    writeAtomic(`${this.runDir}/.arrow/snaps.json`, JSON.stringify(this.snaps));
  }

  /** What a path of a scope should hold: its snapshot when verified, else its last record. */
  #target(n: PlanNode): FileMap {
    return this.snaps[n.id] ?? this.scopes[n.id] ?? {};
  }

  /** Run-relative paths of `n` (as the guard reports them) whose recorded content can be put back. */
  restorable(n: PlanNode, paths: readonly string[]): string[] {
    const prefix = `nodes/${n.scope}/`;
    const target = this.#target(n);
    return paths.filter((p) => {
      if (!p.startsWith(prefix)) return false;
      const rel = p.slice(prefix.length);
      const want = target[rel];
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
      const want = target[rel];
      if (!want) removeAny(abs);
      else this.blobs.restoreOne(abs, want);
    }
    const after = this.current(n).map;
    return rels.filter((rel) => after[rel]?.v !== target[rel]?.v).map((rel) => `${prefix}${rel}`);
  }

  /** Makes every scope match its record at the state's tick (after a crash); returns what could not be restored. */
  restore(state: RunState): string[] {
    const rec: Record<NodeId, FileMap> = {};
    let text = "";
    try {
      text = Deno.readTextFileSync(`${this.runDir}/.arrow/scopes.jsonl`);
    } catch {
      return ["(no scope record)"];
    }
    for (const line of text.split("\n")) {
      let r: { tick: number; changes: Changes };
      try {
        r = JSON.parse(line);
      } catch {
        continue;
      }
      if (r.tick > state.tick) break;
      for (const [node, diff] of Object.entries(r.changes)) {
        const files = (rec[node] ??= {});
        for (const [rel, v] of Object.entries(diff)) {
          if (v === null) delete files[rel];
          else files[rel] = { v: v[0], n: v[1] };
        }
      }
    }
    const lost: string[] = [];
    for (const n of state.plan.nodes) {
      if (!state.nodes[n.id]!.spawned) continue;
      const want = rec[n.id] ?? {};
      const have = this.current(n).map;
      for (const rel of [...new Set([...Object.keys(want), ...Object.keys(have)])].sort()) {
        if (want[rel]?.v === have[rel]?.v && want[rel]?.n === have[rel]?.n) continue;
        const abs = `${this.scopeOf(n)}/${rel}`;
        if (!want[rel]) removeAny(abs);
        else if (!this.blobs.restoreOne(abs, want[rel]!)) lost.push(`nodes/${n.scope}/${rel}`);
      }
      this.scopes[n.id] = want;
    }
    return lost;
  }

  /** Drops journal lines after `tick` (they describe a tick the crash left unpersisted). */
  truncate(tick: number): void {
    const path = `${this.runDir}/.arrow/scopes.jsonl`;
    let text = "";
    try {
      text = Deno.readTextFileSync(path);
    } catch {
      return;
    }
    const keep = text.split("\n").filter((line) => {
      try {
        return (JSON.parse(line) as { tick: number }).tick <= tick;
      } catch {
        return false;
      }
    });
    writeAtomic(path, keep.map((l) => l + "\n").join(""));
  }
}
