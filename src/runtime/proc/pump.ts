/**
 * A child's stdout or stderr copied into its log file, read for as long as the pipe is open and stopped on
 * demand. The pipe closes when every process holding its write end has gone — which a background process
 * that inherited it can put off forever — so whoever waits on a pump waits a bounded time (`drain`).
 *
 * @module
 */

export interface Pump {
  /** Settles once the pipe is at its end or the pump was cancelled; never rejects. */
  done: Promise<void>;
  /** Stops reading: what is still unread stays unread. */
  cancel(): void;
}

/**
 * Opens a log for appending without following a symlink or blocking on a FIFO a worker may have left in its
 * place (either is replaced by a fresh file); null when no regular file can be had there.
 */
export function openLog(path: string): Deno.FsFile | null {
  try {
    if (!Deno.lstatSync(path).isFile) Deno.removeSync(path);
  } catch {
    // absent (created below), or not removable (refused below)
  }
  let f: Deno.FsFile;
  try {
    // read+write: opening a FIFO that raced into place this way returns at once instead of waiting for a reader
    f = Deno.openSync(path, { read: true, write: true, append: true, create: true });
  } catch {
    return null;
  }
  try {
    if (f.statSync().isFile) return f;
  } catch {
    // fall through
  }
  f.close();
  return null;
}

/** Copies `stream` into `file` (or just empties it, so the writer never blocks, when `file` is null). */
export function pump(stream: ReadableStream<Uint8Array>, file: Deno.FsFile | null): Pump {
  const reader = stream.getReader();
  let sink = file;
  const done = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        if (!sink) continue;
        try {
          for (let at = 0; at < value.length;) at += await sink.write(value.subarray(at));
        } catch {
          sink = null;
        }
      }
    } catch {
      // the pipe broke or was cancelled
    } finally {
      try {
        file?.close();
      } catch {
        // already closed
      }
    }
  })();
  return { done, cancel: () => void reader.cancel().catch(() => {}) };
}

/**
 * Waits for the pumps to reach the end of their pipes, at most `graceMs`; then cancels the rest and waits a
 * little more (a cancelled read ends at once). True when everything written was read.
 */
export async function drain(pumps: readonly Pump[], graceMs: number): Promise<boolean> {
  if (pumps.length === 0) return true;
  const all = Promise.all(pumps.map((p) => p.done));
  if (await within(all, graceMs)) return true;
  for (const p of pumps) p.cancel();
  await within(all, 1000);
  return false;
}

/** True when `p` settles within `ms`; never rejects, never leaves its timer behind. */
export async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((r) => (timer = setTimeout(() => r(false), ms)));
  try {
    return await Promise.race([p.then(() => true, () => true), late]);
  } finally {
    clearTimeout(timer);
  }
}
