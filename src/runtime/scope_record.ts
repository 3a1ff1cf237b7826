/**
 * The record of every scope: per tick, the content hash of each file (appended to .arrow/scopes.jsonl)
 * with the contents in the blob store; plus the snapshot taken when a node is verified. It is what a
 * foreign write is reverted from and what a resumed run restores every scope to.
 *
 * @module
 */
import type { NodeId, PlanNode } from "../graph/types.ts";
import type { RunState } from "../model/state.ts";
import { appendDurable, writeAtomic } from "./atomic.ts";
import { BlobStore, type FileMap } from "./blobs.ts";
import type { Fingerprinter } from "./fingerprint.ts";

export const toMap = (m: Map<string, string>): FileMap =>
  Object.fromEntries([...m].sort(([a], [b]) => (a < b ? -1 : 1)));

type Changes = Record<NodeId, Record<string, string | null>>;

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

  #current(n: PlanNode): FileMap {
    return toMap(this.fingerprints.scan(this.scopeOf(n)).files);
  }

  /**
   * Records the scopes that may legitimately have changed this tick — those of nodes that ran, or that the
   * engine itself touched (started, stopped, reverted, snapshotted) — at the end of a tick. Any other
   * scope keeps its record, so a foreign write landing after SENSE is still flagged by the next SENSE.
   * `touched` undefined records every scope (tick 0). Appends are cheap; replacing a file is not.
   */
  record(state: RunState, touched?: ReadonlySet<NodeId>): void {
    const changes: Changes = {};
    for (const n of state.plan.nodes) {
      if (!state.nodes[n.id]!.spawned) continue;
      if (touched && !touched.has(n.id) && n.id in this.scopes) continue;
      const now = this.#current(n);
      const prev = this.scopes[n.id] ?? {};
      const diff: Record<string, string | null> = {};
      for (const [rel, hash] of Object.entries(now)) {
        if (prev[rel] === hash) continue;
        this.blobs.put(`${this.scopeOf(n)}/${rel}`, hash);
        diff[rel] = hash;
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

  /** Keeps a verified scope's content to revert foreign writes from. */
  snapshot(n: PlanNode): void {
    const print = this.fingerprints.scan(this.scopeOf(n));
    for (const [rel, hash] of print.files) this.blobs.put(`${this.scopeOf(n)}/${rel}`, hash);
    this.snaps[n.id] = toMap(print.files);
    writeAtomic(`${this.runDir}/.arrow/snaps.json`, JSON.stringify(this.snaps));
  }

  /** Restores the given run-relative paths of a scope from its snapshot (or its last record). */
  revert(n: PlanNode, paths: string[]): void {
    const prefix = `nodes/${n.scope}/`;
    const rels = paths.filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length));
    const target = this.snaps[n.id] ?? this.scopes[n.id] ?? {};
    this.blobs.restore(this.scopeOf(n), target, this.#current(n), rels);
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
        for (const [rel, hash] of Object.entries(diff)) {
          if (hash === null) delete files[rel];
          else files[rel] = hash;
        }
      }
    }
    const lost: string[] = [];
    for (const n of state.plan.nodes) {
      if (!state.nodes[n.id]!.spawned) continue;
      const r = this.blobs.restore(this.scopeOf(n), rec[n.id] ?? {}, this.#current(n));
      lost.push(...r.lost.map((p) => `nodes/${n.scope}/${p}`));
      this.scopes[n.id] = rec[n.id] ?? {};
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
