/**
 * Reading files a worker controls without trusting them: opened with O_NOFOLLOW | O_NONBLOCK (a symlink is
 * refused, a FIFO cannot block), checked to be a regular file on the open descriptor itself (no race between
 * a check and the open), and read in bounded chunks. Every failure is a short reason, never an exception.
 *
 * @module
 */
import * as fs from "node:fs";
import { createHash } from "node:crypto";

const FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;
const CHUNK = 256 << 10;
let buffer: Uint8Array | null = null;

export type Opened = { ok: true; fd: number; size: number; ino: number } | { ok: false; error: string };

/** What kind of thing a path is, without following it. */
export function kindOf(st: fs.Stats | Deno.FileInfo): string {
  if ("isFIFO" in st && typeof st.isFIFO === "function") {
    const s = st as fs.Stats;
    return s.isFile()
      ? "file"
      : s.isDirectory()
      ? "dir"
      : s.isSymbolicLink()
      ? "symlink"
      : s.isFIFO()
      ? "fifo"
      : s.isSocket()
      ? "socket"
      : s.isCharacterDevice()
      ? "chardev"
      : s.isBlockDevice()
      ? "blockdev"
      : "unknown";
  }
  const d = st as Deno.FileInfo;
  return d.isFile
    ? "file"
    : d.isDirectory
    ? "dir"
    : d.isSymlink
    ? "symlink"
    : d.isFifo
    ? "fifo"
    : d.isSocket
    ? "socket"
    : d.isCharDevice
    ? "chardev"
    : d.isBlockDevice
    ? "blockdev"
    : "unknown";
}

/** Opens a regular file for reading, refusing symlinks and anything that is not a regular file. */
export function openRegular(path: string): Opened {
  let fd: number;
  try {
    fd = fs.openSync(path, FLAGS);
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === "ENOENT") return { ok: false, error: "is missing" };
    if (code === "ELOOP") return { ok: false, error: "is a symlink (not followed)" };
    if (code === "ENAMETOOLONG") return { ok: false, error: "has a path too long to open" };
    return { ok: false, error: `cannot be opened (${code ?? (e as Error).message})` };
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) {
      fs.closeSync(fd);
      return { ok: false, error: `is not a regular file (${kindOf(st)})` };
    }
    return { ok: true, fd, size: st.size, ino: st.ino };
  } catch (e) {
    fs.closeSync(fd);
    return { ok: false, error: `cannot be inspected (${(e as Error).message})` };
  }
}

/** Reads a whole regular file of at most `maxBytes`. */
export function readRegular(
  path: string,
  maxBytes: number,
): { ok: true; bytes: Uint8Array } | { ok: false; error: string } {
  const o = openRegular(path);
  if (!o.ok) return o;
  try {
    if (o.size > maxBytes) return { ok: false, error: `is larger than ${maxBytes} bytes (${o.size})` };
    const bytes = new Uint8Array(o.size);
    let got = 0;
    while (got < bytes.length) {
      const n = fs.readSync(o.fd, bytes, got, bytes.length - got, null);
      if (!n) break;
      got += n;
    }
    return { ok: true, bytes: got === bytes.length ? bytes : bytes.subarray(0, got) };
  } finally {
    fs.closeSync(o.fd);
  }
}

/** Reads up to `max` bytes of a regular file from `offset` (for tailing appended logs). */
export function readRange(
  path: string,
  offset: number,
  max: number,
): { ok: true; bytes: Uint8Array; size: number } | { ok: false; error: string } {
  const o = openRegular(path);
  if (!o.ok) return o;
  try {
    const want = Math.max(0, Math.min(max, o.size - offset));
    const bytes = new Uint8Array(want);
    let got = 0;
    while (got < want) {
      const n = fs.readSync(o.fd, bytes, got, want - got, offset + got);
      if (!n) break;
      got += n;
    }
    return { ok: true, bytes: bytes.subarray(0, got), size: o.size };
  } finally {
    fs.closeSync(o.fd);
  }
}

export interface FileDigest {
  hash: string;
  size: number;
  /** Digest of the first `prefixSize` bytes, when asked for (to tell an append from a rewrite). */
  prefix?: string;
}

/**
 * sha256 of a regular file, streamed in 256 KiB chunks; with `prefixSize` also the digest of that many
 * leading bytes, computed in the same pass. `maxBytes` bounds the work: a larger file is hashed up to it
 * and its size is mixed in (its digest then says "large file of this size and head").
 */
export function hashRegular(
  path: string,
  prefixSize?: number,
  maxBytes = 1 << 30,
): FileDigest | { error: string } {
  const o = openRegular(path);
  if (!o.ok) return { error: o.error };
  const h = createHash("sha256");
  buffer ??= new Uint8Array(CHUNK);
  let prefix: string | undefined;
  let total = 0;
  try {
    for (;;) {
      if (prefixSize !== undefined && prefix === undefined && total === prefixSize) {
        prefix = h.copy().digest("hex");
      }
      const room = prefixSize !== undefined && total < prefixSize
        ? Math.min(CHUNK, prefixSize - total)
        : CHUNK;
      if (total >= maxBytes) {
        h.update(`\u0000truncated-at:${total}:size:${o.size}`);
        break;
      }
      const n = fs.readSync(o.fd, buffer, 0, Math.min(room, maxBytes - total), null);
      if (!n) break;
      h.update(n === CHUNK ? buffer : buffer.subarray(0, n));
      total += n;
    }
  } finally {
    fs.closeSync(o.fd);
  }
  const hash = h.digest("hex");
  if (prefixSize !== undefined && prefix === undefined && total === prefixSize) prefix = hash;
  return { hash, size: total, ...(prefix !== undefined ? { prefix } : {}) };
}

/** Copies a regular file to `dest` (created exclusively), returning the sha256 of what was copied. */
export function copyRegular(
  path: string,
  dest: string,
  maxBytes: number,
): { hash: string; size: number } | { error: string } {
  const o = openRegular(path);
  if (!o.ok) return { error: o.error };
  if (o.size > maxBytes) {
    fs.closeSync(o.fd);
    return { error: `is larger than ${maxBytes} bytes` };
  }
  const h = createHash("sha256");
  buffer ??= new Uint8Array(CHUNK);
  let out: number | null = null;
  let total = 0;
  try {
    out = fs.openSync(dest, "wx");
    for (;;) {
      const n = fs.readSync(o.fd, buffer, 0, CHUNK, null);
      if (!n) break;
      const chunk = n === CHUNK ? buffer : buffer.subarray(0, n);
      h.update(chunk);
      let off = 0;
      while (off < n) off += fs.writeSync(out, chunk, off, n - off);
      total += n;
      if (total > maxBytes) return { error: `grew beyond ${maxBytes} bytes while copied` };
    }
    return { hash: h.digest("hex"), size: total };
  } catch (e) {
    return { error: `cannot be copied (${(e as Error).message})` };
  } finally {
    fs.closeSync(o.fd);
    if (out !== null) fs.closeSync(out);
  }
}
