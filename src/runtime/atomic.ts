/**
 * Durable file writes: atomic replace (temp file in the same directory, fsync, rename, fsync the directory)
 * and appends flushed to disk, so a crash leaves either the old or the new content, never a mix.
 *
 * @module
 */

const enc = new TextEncoder();

function syncDir(dir: string): void {
  try {
    using d = Deno.openSync(dir, { read: true });
    d.syncSync();
  } catch {
    // Some filesystems refuse fsync on directories; the rename is still atomic.
  }
}

function dirOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i <= 0 ? "." : path.slice(0, i);
}

export function writeAtomic(path: string, data: string | Uint8Array): void {
  const dir = dirOf(path);
  const tmp = `${dir}/.${path.slice(dir.length + 1)}.${Deno.pid}.tmp`;
  {
    using f = Deno.openSync(tmp, { write: true, create: true, truncate: true });
    const bytes = typeof data === "string" ? enc.encode(data) : data;
    let off = 0;
    while (off < bytes.length) off += f.writeSync(bytes.subarray(off));
    f.syncSync();
  }
  Deno.renameSync(tmp, path);
  syncDir(dir);
}

/** Appends text and flushes it to disk before returning. */
export function appendDurable(path: string, text: string): void {
  if (!text) return;
  using f = Deno.openSync(path, { write: true, create: true, append: true });
  const bytes = enc.encode(text);
  let off = 0;
  while (off < bytes.length) off += f.writeSync(bytes.subarray(off));
  f.syncSync();
}
