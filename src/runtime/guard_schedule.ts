/**
 * Which idle scopes the fingerprint guard scans this tick. A plan of a few dozen nodes has every scope
 * scanned every tick (deterministic, and cheap). A large plan would spend most of its tick re-reading scopes
 * nobody touched, so there the guard scans the scopes the kernel reported changes in (inotify, through
 * Deno.watchFs on the run's nodes/) plus a rotating slice of the rest — a missed or overflowed event still
 * shows within a bounded number of ticks.
 *
 * @module
 */
import type { NodeId } from "../graph/types.ts";

/** Up to this many idle scopes, all are scanned every tick. */
export const FULL_SCAN_UNDER = 64;
/** Idle scopes scanned per tick in rotation on larger plans, besides the ones reported changed. */
export const ROTATE = 16;

export class GuardSchedule {
  #watcher: Deno.FsWatcher | null = null;
  #dirty = new Set<string>();
  #cursor = 0;
  #failed = false;

  constructor(readonly nodesDir: string) {}

  /** Starts listening for changes under nodes/ (once; a watcher that cannot start leaves rotation alone). */
  #watch(): void {
    if (this.#watcher || this.#failed) return;
    try {
      this.#watcher = Deno.watchFs(this.nodesDir, { recursive: true });
    } catch {
      this.#failed = true;
      return;
    }
    const w = this.#watcher;
    (async () => {
      try {
        for await (const ev of w) for (const p of ev.paths) this.#dirty.add(p);
      } catch {
        // closed
      }
    })();
  }

  /**
   * The idle nodes to scan now, given every idle node in plan order and each node's scope directory
   * relative to nodes/ (scopes never nest, so a changed path names at most one).
   */
  pick(idle: readonly NodeId[], scopeOf: (id: NodeId) => string): NodeId[] {
    if (idle.length <= FULL_SCAN_UNDER) return [...idle];
    this.#watch();
    const want = new Set<NodeId>();
    if (this.#dirty.size) {
      const byScope = new Map(idle.map((id) => [scopeOf(id), id]));
      for (const p of this.#dirty) {
        const rel = p.startsWith(this.nodesDir + "/") ? p.slice(this.nodesDir.length + 1) : null;
        if (rel === null) continue;
        const parts = rel.split("/");
        for (let k = 1; k <= parts.length; k++) {
          const id = byScope.get(parts.slice(0, k).join("/"));
          if (id !== undefined) {
            want.add(id);
            break;
          }
        }
      }
      this.#dirty.clear();
    }
    for (let k = 0; k < Math.min(ROTATE, idle.length); k++) want.add(idle[(this.#cursor + k) % idle.length]!);
    this.#cursor = (this.#cursor + ROTATE) % idle.length;
    return idle.filter((id) => want.has(id));
  }

  close(): void {
    try {
      this.#watcher?.close();
    } catch {
      // already closed
    }
    this.#watcher = null;
  }
}
