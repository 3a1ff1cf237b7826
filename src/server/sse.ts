/**
 * Server-sent events for one run: every replay line after a given tick as an `tick` event whose id is the
 * tick (so a reconnecting browser resumes with Last-Event-ID), then `done` when the run has its verdict.
 * One replay line carries that tick's status deltas, incidents and metric points together, which is what
 * the browser's reducer folds.
 *
 * @module
 */
import type { FeedLine, ReplayFeed } from "./replay_feed.ts";

const enc = new TextEncoder();

export function frame(l: FeedLine): string {
  return `id: ${l.tick}\nevent: tick\ndata: ${l.text}\n\n`;
}

/** The tick to resume after: Last-Event-ID (set by a reconnecting browser) wins over `?after=`. */
export function resumeAfter(lastEventId: string | undefined, after: string | undefined): number {
  for (const v of [lastEventId, after]) {
    if (v !== undefined && /^-?\d{1,9}$/.test(v.trim())) return Number(v.trim());
  }
  return -1;
}

/** Streams `feed` from after tick `after`; `release` runs once, when the stream ends for any reason. */
export function sseResponse(feed: ReplayFeed, after: number, release: () => void): Response {
  let unfollow: () => void = () => {};
  let open = true;
  const finish = () => {
    if (!open) return false;
    open = false;
    unfollow();
    release();
    return true;
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // A browser retries a dropped stream after this many milliseconds.
      controller.enqueue(enc.encode("retry: 1000\n\n"));
      unfollow = feed.follow(after, {
        line: (l) => {
          if (open) controller.enqueue(enc.encode(frame(l)));
        },
        end: () => {
          if (!open) return;
          if (feed.final) controller.enqueue(enc.encode("event: done\ndata: {}\n\n"));
          finish();
          controller.close();
        },
      });
      // follow() may already have ended the stream (a finished run).
      if (!open) unfollow();
    },
    cancel() {
      finish();
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      "x-accel-buffering": "no",
    },
  });
}
