/**
 * Append-only JSON-lines files for usage and transcripts: each record goes out in one write of one line
 * (so a killed writer leaves at most a torn last line), and reading skips lines that do not parse.
 *
 * @module
 */
import { canonical } from "../model/json.ts";

const enc = new TextEncoder();
const made = new Set<string>();
/** Files this process has appended to: they end with a newline, as every write here does. */
const whole = new Set<string>();

function ensureDir(path: string): void {
  const dir = path.slice(0, path.lastIndexOf("/"));
  if (!dir || made.has(dir)) return;
  Deno.mkdirSync(dir, { recursive: true });
  made.add(dir);
}

/**
 * Appends one record as a line (sorted keys). The write reaches the kernel before this returns, so it
 * survives a killed process; there is no fsync, which only a power loss would need.
 */
export function appendJsonl(path: string, record: unknown): void {
  ensureDir(path);
  using f = Deno.openSync(path, { write: true, create: true, append: true });
  // After a torn last line (a writer killed mid-write), start on a fresh line.
  let torn = false;
  const size = whole.has(path) ? 0 : f.statSync().size;
  if (size > 0) {
    using r = Deno.openSync(path, { read: true });
    r.seekSync(size - 1, Deno.SeekMode.Start);
    const last = new Uint8Array(1);
    r.readSync(last);
    torn = last[0] !== 10;
  }
  const bytes = enc.encode(`${torn ? "\n" : ""}${canonical(record)}\n`);
  let off = 0;
  while (off < bytes.length) off += f.writeSync(bytes.subarray(off));
  whole.add(path);
}

/** Parsed objects of a JSON-lines file from byte `from` on; malformed lines are skipped and counted. */
export function readJsonl(
  path: string,
  from = 0,
): { records: Record<string, unknown>[]; skipped: number; end: number } {
  let bytes: Uint8Array;
  try {
    // Only the bytes after `from`: a ledger polled every call stays cheap however long the file grows.
    using f = Deno.openSync(path, { read: true });
    const size = f.statSync().size;
    bytes = new Uint8Array(Math.max(0, size - from));
    f.seekSync(Math.min(from, size), Deno.SeekMode.Start);
    let off = 0;
    while (off < bytes.length) {
      const n = f.readSync(bytes.subarray(off));
      if (n === null) break;
      off += n;
    }
    bytes = bytes.subarray(0, off);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return { records: [], skipped: 0, end: 0 };
    throw e;
  }
  // Only whole lines: a line still being written is read next time.
  const stop = bytes.lastIndexOf(10) + 1;
  const text = new TextDecoder().decode(bytes.subarray(0, stop));
  const records: Record<string, unknown>[] = [];
  let skipped = 0;
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const v = JSON.parse(line);
      if (v && typeof v === "object" && !Array.isArray(v)) records.push(v);
      else skipped++;
    } catch {
      skipped++;
    }
  }
  return { records, skipped, end: from + stop };
}
