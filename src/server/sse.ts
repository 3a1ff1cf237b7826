/**
 * Server-sent events for one run: every replay line after a given tick as a `tick` event whose id is the
 * tick (so a reconnecting browser resumes with Last-Event-ID), then `done` when the run has its verdict.
 * A line too large for the live feed comes as a `big` event naming its tick and size: the client fetches
 * it from /replay. Each client's stream is pulled: the next line is read only when the client has taken
 * the last one, so a slow client holds one frame of server memory, not a queue; one that takes nothing for
 * `stallMs` while lines wait is dropped, which frees its connection's buffers.
 *
 * @module
 */
import type { FeedEntry, ReplayFeed } from "./replay_feed.ts";

const enc = new TextEncoder();

export function bigFrame(e: FeedEntry): string {
  return `id: ${e.tick}\nevent: big\ndata: {"bytes":${e.bytes},"tick":${e.tick}}\n\n`;
}

/** The tick to resume after: Last-Event-ID (set by a reconnecting browser) wins over `?after=`. */
export function resumeAfter(lastEventId: string | undefined, after: string | undefined): number {
  for (const v of [lastEventId, after]) {
    if (v !== undefined && /^-?\d{1,9}$/.test(v.trim())) return Number(v.trim());
  }
  return -1;
}

export interface SseOptions {
  /** Drop a client that has taken nothing for this long while lines wait for it. */
  stallMs: number;
  /** Called when a client is dropped for being slow. */
  onDrop?: () => void;
}

export const DEFAULT_STALL_MS = 30_000;

/** Streams `feed` from after tick `after`; `release` runs once, when the stream ends for any reason. */
export function sseResponse(
  feed: ReplayFeed,
  after: number,
  release: () => void,
  opts: SseOptions = { stallMs: DEFAULT_STALL_MS },
): Response {
  let cursor = feed.indexAfter(after);
  let open = true;
  let lastPull = performance.now();
  let waiting: (() => void) | null = null;
  let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  const wakeReader = () => {
    const w = waiting;
    waiting = null;
    w?.();
  };
  const finish = () => {
    if (!open) return;
    open = false;
    unsubscribe();
    wakeReader();
    release();
  };
  const drop = (why: string) => {
    finish();
    // An error (not a close) ends the response at once, even with frames still queued for the socket.
    controller?.error(new Error(why));
  };
  const unsubscribe = feed.subscribe(() => {
    // New lines (or the end): a reader waiting gets them; one that has stopped reading may be dropped.
    if (waiting) return wakeReader();
    if (!open) return;
    if (feed.aborted) return drop("the server is closing");
    // Closed: the reader still gets the lines there are, then the end; one that never reads them is
    // aborted by the server's shutdown.
    if (feed.closed) return;
    if (performance.now() - lastPull > opts.stallMs) {
      opts.onDrop?.();
      drop("the client is too slow");
    }
  });
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      // A browser retries a dropped stream after this many milliseconds.
      c.enqueue(enc.encode("retry: 1000\n\n"));
    },
    async pull(c) {
      lastPull = performance.now();
      while (open) {
        const e = feed.entries[cursor];
        if (e) {
          cursor++;
          const frame = await feed.frame(e);
          if (!open) return;
          // The same cached buffer goes to every reader: nothing is copied per client.
          c.enqueue(frame ?? enc.encode(bigFrame(e)));
          return;
        }
        if (feed.final || feed.closed) {
          if (feed.final) c.enqueue(enc.encode("event: done\ndata: {}\n\n"));
          finish();
          c.close();
          return;
        }
        await new Promise<void>((resolve) => waiting = resolve);
      }
    },
    cancel() {
      finish();
    },
  }, { highWaterMark: 0 });
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      "x-accel-buffering": "no",
    },
  });
}
