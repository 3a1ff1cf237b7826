/**
 * The tree's durable store: one SQLite database per run (`tree.db`, `node:sqlite`, WAL), written once per
 * step in one transaction — the event, the state after it, the nodes that changed and the incidents it
 * raised — so a process killed at any instant leaves either the whole step or none of it.
 *
 * Schema (version 1; persisted meanings never change):
 *
 * | table | holds |
 * |---|---|
 * | `meta(key, value)` | `format`, `config` (the run's settings), `started_at` |
 * | `events(seq, kind, body)` | the authority: every event folded, canonical JSON, seq 0 = init |
 * | `snapshot(id = 1, seq, body)` | the state after event `seq`, written when a step settles a cycle (`settles`: the start, each cycle's end, the verdict), checked by a resume against the events folded up to `seq` |
 * | `nodes(id, parent, status, cycle, family, dev, heldout, test, body)` | each node as last written, for queries |
 * | `incidents(seq, n, type, node, body)` | every incident, by the step that raised it |
 * | `timings(seq, kind, wall_ms, child_ms, fit_ms, overhead_ms, cpu_ms, loop_ms)` | wall-clock facts, never part of a decision (`overhead_ms`: the step's wall time minus its children's; `cpu_ms`: arrow's own CPU time in it; `loop_ms`: ideation, the step function and persisting it) |
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { canonical } from "../model/json.ts";
import type { Incident } from "../model/state.ts";
import type { TreeEvent, TreeState } from "./types.ts";

export const STORE_FORMAT = "arrow-tree-db/1";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS snapshot (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS nodes (
  id TEXT PRIMARY KEY, parent TEXT, status TEXT NOT NULL, cycle INTEGER NOT NULL, family TEXT,
  dev REAL, heldout REAL, test REAL, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS incidents (
  seq INTEGER NOT NULL, n INTEGER NOT NULL, type TEXT NOT NULL, node TEXT NOT NULL, body TEXT NOT NULL,
  PRIMARY KEY (seq, n));
CREATE TABLE IF NOT EXISTS timings (
  seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, wall_ms REAL NOT NULL, child_ms REAL NOT NULL,
  fit_ms REAL NOT NULL, overhead_ms REAL NOT NULL, cpu_ms REAL NOT NULL, loop_ms REAL NOT NULL);
`;

export interface Timing {
  seq: number;
  kind: string;
  wall_ms: number;
  child_ms: number;
  fit_ms: number;
  overhead_ms: number;
  cpu_ms: number;
  loop_ms: number;
}

/** Whether the step that produced `state` settles a cycle: the start, a cycle's end (the next action is
 * ideation) or the run's end. The snapshot and state.json are written then; between, the events alone. */
export function settles(event: TreeEvent, state: TreeState): boolean {
  return event.e === "init" || state.pending === null || state.pending.a === "ideate" ||
    state.pending.a === "final";
}

export class TreeStore {
  readonly #db: DatabaseSync;
  /** Each node as last written (its plain JSON, then its canonical body), so a step writes only the
   * nodes it changed: a node the step did not touch serialises to the same plain JSON (the step function
   * clones the state, keeping every key's order), and only a node whose plain JSON moved is made canonical. */
  readonly #written = new Map<string, { raw: string; body: string }>();

  private constructor(readonly path: string) {
    this.#db = new DatabaseSync(path);
    this.#db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=5000;");
    this.#db.exec(SCHEMA);
  }

  /** A new store; refuses a path that already holds one. */
  static create(path: string, meta: Record<string, string>): TreeStore {
    try {
      Deno.statSync(path);
      throw new Error(`Cannot create ${path}: it exists`);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
    const s = new TreeStore(path);
    const put = s.#db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)");
    s.#db.exec("BEGIN");
    put.run("format", STORE_FORMAT);
    for (const [k, v] of Object.entries(meta)) put.run(k, v);
    s.#db.exec("COMMIT");
    return s;
  }

  /** An existing store; a missing file or another format is a TypeError naming the file. */
  static open(path: string): TreeStore {
    try {
      Deno.statSync(path);
    } catch {
      throw new TypeError(`Cannot resume: ${path} is missing`);
    }
    const s = new TreeStore(path);
    const f = s.meta("format");
    if (f !== STORE_FORMAT) {
      s.close();
      throw new TypeError(
        `Cannot resume: ${path} is not a tree store of format ${STORE_FORMAT} (it says ${f})`,
      );
    }
    return s;
  }

  meta(key: string): string | null {
    const row = this.#db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as
      | { value?: string }
      | undefined;
    return row?.value ?? null;
  }

  /** Persists one step atomically: its event, the state after it when the step settles a cycle (the
   * events are the authority: a resume folds them), changed nodes, incidents. */
  append(seq: number, event: TreeEvent, state: TreeState, incidents: readonly Incident[]): void {
    const db = this.#db;
    db.exec("BEGIN IMMEDIATE");
    try {
      db.prepare("INSERT INTO events (seq, kind, body) VALUES (?, ?, ?)").run(seq, event.e, canonical(event));
      if (settles(event, state)) {
        db.prepare("INSERT OR REPLACE INTO snapshot (id, seq, body) VALUES (1, ?, ?)").run(
          seq,
          canonical(state),
        );
      }
      const put = db.prepare(
        "INSERT OR REPLACE INTO nodes (id, parent, status, cycle, family, dev, heldout, test, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      );
      const wrote: [string, { raw: string; body: string }][] = [];
      for (const id of state.order) {
        const n = state.nodes[id]!;
        const raw = JSON.stringify(n);
        const was = this.#written.get(id);
        if (was?.raw === raw) continue;
        const body = canonical(n);
        wrote.push([id, { raw, body }]);
        if (was?.body === body) continue;
        put.run(
          id,
          n.parent,
          n.status,
          n.cycle,
          n.hypothesis?.family ?? null,
          n.dev?.mean ?? null,
          n.heldout,
          n.test,
          body,
        );
      }
      const inc = db.prepare("INSERT INTO incidents (seq, n, type, node, body) VALUES (?, ?, ?, ?, ?)");
      incidents.forEach((i, k) => inc.run(seq, k, i.type, i.node, canonical(i)));
      db.exec("COMMIT");
      for (const [id, w] of wrote) this.#written.set(id, w);
    } catch (e) {
      db.exec("ROLLBACK");
      throw e;
    }
  }

  timing(t: Timing): void {
    this.#db.prepare(
      "INSERT OR REPLACE INTO timings (seq, kind, wall_ms, child_ms, fit_ms, overhead_ms, cpu_ms, loop_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    ).run(t.seq, t.kind, t.wall_ms, t.child_ms, t.fit_ms, t.overhead_ms, t.cpu_ms, t.loop_ms);
  }

  events(): TreeEvent[] {
    const rows = this.#db.prepare("SELECT body FROM events ORDER BY seq").all() as { body: string }[];
    return rows.map((r) => JSON.parse(r.body) as TreeEvent);
  }

  snapshot(): { seq: number; state: TreeState } | null {
    const row = this.#db.prepare("SELECT seq, body FROM snapshot WHERE id = 1").get() as
      | { seq: number; body: string }
      | undefined;
    return row ? { seq: row.seq, state: JSON.parse(row.body) as TreeState } : null;
  }

  incidents(): Incident[] {
    const rows = this.#db.prepare("SELECT body FROM incidents ORDER BY seq, n").all() as { body: string }[];
    return rows.map((r) => JSON.parse(r.body) as Incident);
  }

  timings(): Timing[] {
    return this.#db.prepare("SELECT * FROM timings ORDER BY seq").all() as unknown as Timing[];
  }

  close(): void {
    if (this.#db.isOpen) this.#db.close();
  }
}
