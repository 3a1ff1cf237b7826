/**
 * One writer per run directory, by an OS advisory lock (flock) on `.arrow/lock`: the kernel grants it to
 * one process at a time and frees it the moment its holder dies, so there is no stale lock to judge and
 * no race in taking one over. The file also records the holder's pid and kernel start time, for people and
 * for the dashboard's live/stopped badge; the lock itself never depends on what the file says.
 *
 * @module
 */
import { procStartTime } from "./proc/proc.ts";

export class LockedError extends Error {
  override name = "LockedError";
  /** The holder's pid as it recorded it, or -1 when it had not written it yet. */
  constructor(readonly runDir: string, readonly pid: number) {
    super(
      `Cannot open ${runDir}: another arrow process ${pid > 0 ? `(pid ${pid}) ` : ""}is running it`,
    );
  }
}

export interface Lock {
  /** Pid of a previous holder that died without releasing (its record was still in the file). */
  tookOverFrom: number | null;
  /** Frees the lock; calling it again does nothing. The kernel frees it anyway if this process dies. */
  release(): void;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Takes the run lock without waiting; throws LockedError when another open file holds it. */
export function acquireLock(runDir: string): Lock {
  Deno.mkdirSync(`${runDir}/.arrow`, { recursive: true });
  const path = `${runDir}/.arrow/lock`;
  // A link planted here would have us truncate whatever it points at: only a plain file is a lock.
  const before = lstatOrNull(path);
  if (before && !before.isFile) throw new Error(`Cannot lock ${runDir}: ${path} is not a regular file`);
  // Never truncate or delete the file: whoever holds the lock owns that inode, and a second inode at the
  // same path would let two processes each hold "the" lock.
  const file = Deno.openSync(path, { read: true, write: true, create: true });
  let locked = false;
  try {
    const opened = file.statSync();
    const now = lstatOrNull(path);
    if (!now?.isFile || now.ino !== opened.ino || now.dev !== opened.dev) {
      throw new Error(`Cannot lock ${runDir}: ${path} changed while it was being opened`);
    }
    locked = file.tryLockSync(true);
    const previous = recordedPid(file);
    if (!locked) throw new LockedError(runDir, previous ?? -1);
    const mine = JSON.stringify({ pid: Deno.pid, start: procStartTime(Deno.pid) });
    file.truncateSync(0);
    file.seekSync(0, Deno.SeekMode.Start);
    writeAll(file, enc.encode(mine));
    return {
      tookOverFrom: previous !== null && previous !== Deno.pid ? previous : null,
      release: releaser(file),
    };
  } catch (e) {
    if (locked) file.unlockSync();
    file.close();
    throw e;
  }
}

function releaser(file: Deno.FsFile): () => void {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    try {
      // An empty record tells the next holder this one left cleanly.
      file.truncateSync(0);
      file.unlockSync();
    } finally {
      file.close();
    }
  };
}

/** The pid in the lock file's record, or null when the file is empty or not a record. */
function recordedPid(file: Deno.FsFile): number | null {
  const buf = new Uint8Array(256);
  file.seekSync(0, Deno.SeekMode.Start);
  const n = file.readSync(buf) ?? 0;
  try {
    const v = JSON.parse(dec.decode(buf.subarray(0, n))) as { pid?: unknown };
    return typeof v.pid === "number" && Number.isInteger(v.pid) && v.pid > 0 ? v.pid : null;
  } catch {
    return null;
  }
}

function lstatOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch {
    return null;
  }
}

function writeAll(file: Deno.FsFile, bytes: Uint8Array): void {
  for (let off = 0; off < bytes.length;) off += file.writeSync(bytes.subarray(off));
}
