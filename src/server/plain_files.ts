/**
 * Reading a run directory that a worker may have tampered with: no symlink is followed (not the file, not
 * any directory between the run directory and it), nothing but a regular file is opened (a FIFO would hang
 * the server, a device would never end), the file opened is checked to be the one inspected, and what is
 * read whole is capped in size. Everything else is streamed.
 *
 * @module
 */

/** Why a file could not be read: it is missing, not a plain file (or reached through a link), or too big. */
export type Unreadable = "missing" | "not a regular file" | "too large";

export type ReadResult = { ok: true; text: string } | { ok: false; why: Unreadable };

/**
 * lstat of `root/rel` after checking that every directory on the way below `root` is a real directory.
 * `root` itself must have been checked by the caller (the run directory is).
 */
function lstatBelow(root: string, rel: string): Deno.FileInfo | Unreadable {
  const parts = rel.split("/");
  let path = root;
  for (let i = 0; i < parts.length; i++) {
    path += "/" + parts[i];
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(path);
    } catch {
      return "missing";
    }
    if (i < parts.length - 1 && !info.isDirectory) return "not a regular file";
    if (i === parts.length - 1) return info.isFile ? info : "not a regular file";
  }
  return "missing";
}

/** Whether `root/rel` is a regular file reached without following any link. */
export function isPlainFile(root: string, rel: string): boolean {
  return typeof lstatBelow(root, rel) !== "string";
}

/** Opens `root/rel` for reading only if it is a plain file, and only if the file opened is that file. */
export async function openPlain(
  root: string,
  rel: string,
): Promise<{ file: Deno.FsFile; size: number } | Unreadable> {
  const info = lstatBelow(root, rel);
  if (typeof info === "string") return info;
  // Async: should the path be swapped for a FIFO between lstat and open, only this request waits.
  let file: Deno.FsFile;
  try {
    file = await Deno.open(`${root}/${rel}`, { read: true });
  } catch {
    return "missing";
  }
  const now = await file.stat().catch(() => null);
  if (!now || !now.isFile || now.ino !== info.ino || now.dev !== info.dev) {
    file.close();
    return "not a regular file";
  }
  return { file, size: now.size };
}

/** The text of a plain file of at most `cap` bytes. */
export async function readPlain(root: string, rel: string, cap: number): Promise<ReadResult> {
  const opened = await openPlain(root, rel);
  if (typeof opened === "string") return { ok: false, why: opened };
  const { file, size } = opened;
  try {
    if (size > cap) return { ok: false, why: "too large" };
    const buf = new Uint8Array(size);
    let got = 0;
    while (got < size) {
      const n = await file.read(buf.subarray(got));
      if (n === null || n === 0) break;
      got += n;
    }
    return { ok: true, text: new TextDecoder().decode(buf.subarray(0, got)) };
  } finally {
    file.close();
  }
}

const CHUNK = 64 * 1024;

/**
 * A plain file as a pull-driven byte stream (a slow reader holds one chunk, not the file), cut after its
 * last newline when `wholeLines` (so a line still being appended is never served torn).
 */
export async function streamPlain(
  root: string,
  rel: string,
  wholeLines = false,
): Promise<ReadableStream<Uint8Array> | Unreadable> {
  const opened = await openPlain(root, rel);
  if (typeof opened === "string") return opened;
  const { file, size } = opened;
  const end = wholeLines ? await lastNewlineEnd(file, size) : size;
  let sent = 0;
  let closed = false;
  const close = () => {
    if (!closed) file.close();
    closed = true;
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sent >= end) {
        close();
        controller.close();
        return;
      }
      const buf = new Uint8Array(Math.min(CHUNK, end - sent));
      const n = await file.read(buf).catch(() => null);
      if (!n) {
        close();
        controller.close();
        return;
      }
      sent += n;
      controller.enqueue(buf.subarray(0, n));
    },
    cancel: close,
  }, { highWaterMark: 0 });
}

/** Offset just after the last newline in the first `size` bytes, read backwards in chunks; 0 if none. */
async function lastNewlineEnd(file: Deno.FsFile, size: number): Promise<number> {
  const buf = new Uint8Array(CHUNK);
  for (let end = size; end > 0;) {
    const start = Math.max(0, end - CHUNK);
    await file.seek(start, Deno.SeekMode.Start);
    let got = 0;
    while (got < end - start) {
      const n = await file.read(buf.subarray(got, end - start));
      if (n === null || n === 0) break;
      got += n;
    }
    const at = buf.subarray(0, got).lastIndexOf(0x0a);
    if (at >= 0) {
      await file.seek(0, Deno.SeekMode.Start);
      return start + at + 1;
    }
    end = start;
  }
  await file.seek(0, Deno.SeekMode.Start);
  return 0;
}

/**
 * The complete lines of a plain JSONL file, read in chunks: a line longer than `lineCap` bytes is skipped
 * without being held, and a torn last line (an append in progress) is left out.
 */
export async function* plainLines(root: string, rel: string, lineCap: number): AsyncGenerator<string> {
  const opened = await openPlain(root, rel);
  if (typeof opened === "string") return;
  const { file, size } = opened;
  const dec = new TextDecoder();
  try {
    const buf = new Uint8Array(CHUNK);
    let parts: Uint8Array[] = [];
    let partBytes = 0;
    let read = 0;
    while (read < size) {
      const n = await file.read(buf.subarray(0, Math.min(CHUNK, size - read)));
      if (n === null || n === 0) break;
      read += n;
      const chunk = buf.subarray(0, n);
      let start = 0;
      for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, start)) {
        const tail = chunk.subarray(start, nl);
        if (partBytes + tail.length <= lineCap) {
          const line = dec.decode(parts.length ? joinParts([...parts, tail]) : tail);
          if (line.trim() !== "") yield line;
        }
        parts = [];
        partBytes = 0;
        start = nl + 1;
      }
      const rest = chunk.subarray(start);
      partBytes += rest.length;
      // Past the cap the line is skipped when it ends: stop holding its bytes now.
      if (partBytes <= lineCap) parts.push(rest.slice());
      else parts = [];
    }
  } finally {
    file.close();
  }
}

function joinParts(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
