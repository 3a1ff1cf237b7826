/**
 * Retry pacing: exponential backoff with jitter drawn from a seeded PRNG (mulberry32, seeded by FNV-1a of a
 * string such as the node and attempt), so two runs of the same node wait the same, and Retry-After parsing.
 *
 * @module
 */
import { mulberry32 } from "../tabular/prng.ts";
export { mulberry32 };

/** FNV-1a, 32 bit: a stable seed from any string. */
export function seedOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 500, maxMs: 20_000 };

/**
 * Wait before retry number `retry` (0 = the first retry): base·2^retry capped at max, then "equal jitter"
 * (half fixed, half random) so synchronized clients spread out without ever retrying at once.
 */
export function backoffMs(
  retry: number,
  rand: () => number,
  policy: BackoffPolicy = DEFAULT_BACKOFF,
): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(retry, 30));
  return Math.round(ceiling / 2 + (ceiling / 2) * rand());
}

/** A Retry-After header (delta-seconds or an HTTP date) in ms from `nowMs`; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (value === null) return null;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = () => {
      signal?.removeEventListener("abort", stop);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", stop, { once: true });
  });
}
