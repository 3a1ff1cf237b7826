/**
 * Durable file writes: atomic replace (temp file in the same directory, fsync, rename) and appends flushed
 * at tick boundaries, so a crash leaves either the old or the new content, never a mix.
 *
 * @module
 */

const enc = new TextEncoder();

function dirOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i <= 0 ? "." : path.slice(0, i);
}

/**
 * Replaces `path` atomically. With `sync` (the default) the data is fsynced before the rename, so even a
 * power loss leaves the old or the new file; without it a killed process still cannot tear the file.
 */
export function writeAtomic(path: string, data: string | Uint8Array, sync = true): void {
  const dir = dirOf(path);
  const tmp = `${dir}/.${path.slice(dir.length + 1)}.${Deno.pid}.tmp`;
  {
    using f = Deno.openSync(tmp, { write: true, create: true, truncate: true });
    const bytes = typeof data === "string" ? enc.encode(data) : data;
    let off = 0;
    while (off < bytes.length) off += f.writeSync(bytes.subarray(off));
    if (sync) f.syncSync();
  }
  Deno.renameSync(tmp, path);
}

/** Appends text, handed to the OS before returning (survives a killed process); `sync` also fdatasyncs it. */
export function appendDurable(path: string, text: string, sync = true): void {
  if (!text) return;
  using f = Deno.openSync(path, { write: true, create: true, append: true });
  const bytes = enc.encode(text);
  let off = 0;
  while (off < bytes.length) off += f.writeSync(bytes.subarray(off));
  if (sync) f.syncDataSync();
}

/** writeAtomic, asynchronously: temp file, fsync, rename — off the caller's thread. */
export async function writeAtomicAsync(path: string, data: string): Promise<void> {
  const dir = dirOf(path);
  const tmp = `${dir}/.${path.slice(dir.length + 1)}.${Deno.pid}.tmp`;
  const f = await Deno.open(tmp, { write: true, create: true, truncate: true });
  try {
    const bytes = enc.encode(data);
    let off = 0;
    while (off < bytes.length) off += await f.write(bytes.subarray(off));
    await f.sync();
  } finally {
    f.close();
  }
  await Deno.rename(tmp, path);
}

/**
 * Keeps one file atomically replaced with the latest content given, fsynced, without making the caller
 * wait for the disk: writes run one at a time in the background and a newer content supersedes one that
 * has not started yet. `flush()` waits until the latest content is on disk.
 */
export class LatestWriter {
  #pending: string | null = null;
  #running: Promise<void> | null = null;
  #error: unknown = null;

  constructor(readonly path: string) {}

  write(text: string): void {
    this.#pending = text;
    this.#running ??= this.#drain();
  }

  async #drain(): Promise<void> {
    try {
      while (this.#pending !== null) {
        const text = this.#pending;
        this.#pending = null;
        await writeAtomicAsync(this.path, text);
      }
    } catch (e) {
      this.#error = e;
    } finally {
      this.#running = null;
    }
  }

  async flush(): Promise<void> {
    while (this.#running) await this.#running;
    if (this.#error) {
      const e = this.#error;
      this.#error = null;
      throw e;
    }
  }
}
