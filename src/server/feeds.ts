/**
 * The server's replay feeds, one per run being watched. A run driven by this very process is pinned and
 * poked by the engine's onTick (no file watching, lowest latency); any other unfinished run gets a file
 * watcher on its directory while someone follows it. Closing the registry ends every stream, so a server
 * shutdown never waits on an open event stream.
 *
 * @module
 */
import { ReplayFeed } from "./replay_feed.ts";

interface Watched {
  feed: ReplayFeed;
  users: number;
  stop: () => Promise<void>;
  /** Settles once the first read is done and a watcher, if needed, is running. */
  ready?: Promise<void>;
}

/** Fallback pace when the platform cannot watch files. */
const POLL_MS = 100;

export class Feeds {
  #pinned = new Map<string, ReplayFeed>();
  #watched = new Map<string, Watched>();
  /** Watchers being stopped after their last reader left; close() waits for them too. */
  #stopping = new Set<Promise<void>>();
  #closed = false;
  /** Feeds closed by close() whose streams abort() may still have to end. */
  #aborting = new Set<ReplayFeed>();

  /** Registers a run this process drives; the caller pokes the feed after each tick. */
  pin(id: string, runDir: string): ReplayFeed {
    const feed = new ReplayFeed(runDir);
    this.#pinned.set(id, feed);
    return feed;
  }

  /** A feed for run `id` that stays fresh until `release()`; concurrent readers share one. */
  async open(id: string, runDir: string): Promise<{ feed: ReplayFeed; release: () => void }> {
    const pinned = this.#pinned.get(id);
    if (pinned) {
      await pinned.settled();
      return { feed: pinned, release: () => {} };
    }
    let w = this.#watched.get(id);
    if (!w) {
      const feed = new ReplayFeed(runDir);
      w = { feed, users: 0, stop: () => Promise.resolve() };
      this.#watched.set(id, w);
      // The first read tells a finished run (nothing to watch) from a live one.
      const entry = w;
      entry.ready = feed.settled().then(() => {
        if (!this.#closed && !feed.final && !feed.closed) entry.stop = watch(runDir, feed);
      });
    }
    w.users++;
    const entry = w;
    await entry.ready;
    let released = false;
    return {
      feed: entry.feed,
      release: () => {
        if (released) return;
        released = true;
        if (--entry.users > 0) return;
        if (this.#watched.get(id) === entry) this.#watched.delete(id);
        entry.feed.close();
        const stopping = entry.stop().then(() => entry.feed.settled());
        this.#stopping.add(stopping);
        void stopping.finally(() => this.#stopping.delete(stopping));
      },
    };
  }

  /** Ends every stream at once, delivered or not: for clients still holding streams after close(). */
  abort(): void {
    for (const f of this.#pinned.values()) f.abort();
    for (const w of this.#aborting) w.abort();
    this.#aborting.clear();
  }

  /** Ends every stream (what is queued is still delivered) and stops every watcher. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const f of this.#pinned.values()) f.close();
    const stops = [...this.#watched.values()].map(async (w) => {
      this.#aborting.add(w.feed);
      w.feed.close();
      await w.ready;
      await w.stop();
      // A read the watcher started just before holds the file open until it ends.
      await w.feed.settled();
    });
    this.#watched.clear();
    const pinned = [...this.#pinned.values()].map((f) => f.settled());
    await Promise.all([...stops, ...this.#stopping, ...pinned]);
  }
}

/** Pokes `feed` whenever something in `dir` changes, until the run ends or the returned stop is called. */
function watch(dir: string, feed: ReplayFeed): () => Promise<void> {
  let watcher: Deno.FsWatcher;
  try {
    watcher = Deno.watchFs(dir, { recursive: false });
  } catch {
    const t = setInterval(() => feed.poke(), POLL_MS);
    return () => Promise.resolve(clearInterval(t));
  }
  const loop = (async () => {
    try {
      for await (const _ of watcher) {
        feed.poke();
        if (feed.final) break;
      }
    } catch {
      // the watcher was closed under us
    }
  })();
  // The file may have grown between the feed's first read and the watch starting.
  feed.poke();
  let stopped = false;
  return async () => {
    if (!stopped) {
      stopped = true;
      try {
        watcher.close();
      } catch {
        // already closed by the loop's break
      }
    }
    await loop;
  };
}
