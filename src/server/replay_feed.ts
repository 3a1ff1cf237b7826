/**
 * A follower of one run's replay.jsonl, shared by everyone watching that run: it indexes the complete lines
 * appended since the last look (tick, finality, where the line is in the file) and keeps the text of the
 * recent ones within a fixed budget; older text is read back from the file when a late reader needs it.
 * Memory is bounded whatever the run writes: a line over FRAME_CAP is never held (only its tick is kept,
 * and readers are told to fetch it), and reading is chunked and asynchronous, so neither a huge line nor a
 * FIFO planted in place of the file can stall the server. Something else says when to look (`poke`): the
 * engine's onTick for a run in this process, a file watcher for a run in another one.
 *
 * @module
 */
import { parseBounded } from "../runtime/bounded_json.ts";
import { openPlain } from "./safe_read.ts";

/** Largest line sent whole to a live reader; a longer one is announced and fetched from /replay instead. */
export const FRAME_CAP = 1024 * 1024;
/** Text of recent lines kept in memory, in bytes, across the whole feed. */
export const CACHE_BUDGET = 8 * 1024 * 1024;
const READ_CHUNK = 1024 * 1024;
/** Enough of an oversized line's end to read its tick (canonical lines end `"tick":N}`). */
const TAIL = 256;

export interface FeedEntry {
  tick: number;
  /** The line carries the verdict: nothing follows it. */
  final: boolean;
  /** Where the line starts in replay.jsonl, and its length in bytes (without the newline). */
  offset: number;
  bytes: number;
  /** Longer than FRAME_CAP: never sent whole over the live feed. */
  big: boolean;
  /** The line's text while it is cached. */
  text?: string;
}

const NL = 0x0a;
const dec = new TextDecoder();

export class ReplayFeed {
  readonly entries: FeedEntry[] = [];
  readonly #dir: string;
  /** Bytes of the file consumed as complete lines. */
  #committed = 0;
  /** The line still being written: its bytes while it may fit FRAME_CAP, then only its length and tail. */
  #partial: Uint8Array[] = [];
  #partialBytes = 0;
  #tail = new Uint8Array(0);
  #cached = 0;
  /** Index of the oldest entry that may still hold text. */
  #evictFrom = 0;
  #wakers = new Set<() => void>();
  #closed = false;
  #aborted = false;
  #reading: Promise<void> = Promise.resolve();
  #again = false;
  #busy = false;
  /** Malformed or foreign lines skipped. */
  skipped = 0;

  constructor(runDir: string) {
    this.#dir = runDir;
    this.poke();
  }

  get final(): boolean {
    return this.entries.at(-1)?.final ?? false;
  }

  get closed(): boolean {
    return this.#closed;
  }

  get lastTick(): number {
    return this.entries.at(-1)?.tick ?? -1;
  }

  /** End of the last complete line in the file. */
  get end(): number {
    const last = this.entries.at(-1);
    return last ? last.offset + last.bytes + 1 : 0;
  }

  /** Looks for appended lines (soon, asynchronously); cheap when idle, and calls never pile up. */
  poke(): void {
    if (this.#closed || this.final) return;
    if (this.#busy) {
      this.#again = true;
      return;
    }
    this.#busy = true;
    this.#reading = (async () => {
      try {
        do {
          this.#again = false;
          await this.#read();
        } while (this.#again && !this.#closed && !this.final);
      } finally {
        this.#busy = false;
      }
    })();
  }

  /** Resolves once the reads asked for so far are done. */
  settled(): Promise<void> {
    return this.#reading;
  }

  /** Calls `wake` whenever lines are added or the feed ends; returns the unsubscribe function. */
  subscribe(wake: () => void): () => void {
    this.#wakers.add(wake);
    return () => this.#wakers.delete(wake);
  }

  get followers(): number {
    return this.#wakers.size;
  }

  /** Index of the first entry after tick `after`. */
  indexAfter(after: number): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.entries[mid]!.tick <= after) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The text of a line that is not big: from the cache, or read back from the file (null if gone). */
  async text(e: FeedEntry): Promise<string | null> {
    if (e.text !== undefined) return e.text;
    if (e.big) return null;
    const opened = await openPlain(this.#dir, "replay.jsonl");
    if (typeof opened === "string") return null;
    try {
      if (opened.size < e.offset + e.bytes) return null;
      const buf = new Uint8Array(e.bytes);
      await opened.file.seek(e.offset, Deno.SeekMode.Start);
      let got = 0;
      while (got < e.bytes) {
        const n = await opened.file.read(buf.subarray(got));
        if (n === null || n === 0) return null;
        got += n;
      }
      return dec.decode(buf);
    } finally {
      opened.file.close();
    }
  }

  close(): void {
    this.#closed = true;
    this.#wake();
  }

  get aborted(): boolean {
    return this.#aborted;
  }

  /** Closes, and tells readers to end at once even with frames still undelivered (a shutdown's last word). */
  abort(): void {
    this.#aborted = true;
    this.close();
  }

  #wake(): void {
    for (const w of [...this.#wakers]) w();
  }

  async #read(): Promise<void> {
    const opened = await openPlain(this.#dir, "replay.jsonl");
    if (typeof opened === "string") return;
    const { file, size } = opened;
    try {
      const seen = this.#committed + this.#partialBytes;
      if (size < seen) {
        // A resume cuts a torn last line off; whatever we held of it is gone too.
        this.#resetPartial();
        if (size < this.#committed) return;
      }
      let pos = this.#committed + this.#partialBytes;
      await file.seek(pos, Deno.SeekMode.Start);
      const added = this.entries.length;
      const buf = new Uint8Array(READ_CHUNK);
      while (pos < size && !this.#closed && !this.final) {
        const n = await file.read(buf.subarray(0, Math.min(READ_CHUNK, size - pos)));
        if (n === null || n === 0) break;
        this.#consume(buf.subarray(0, n));
        pos += n;
      }
      if (this.entries.length > added) this.#wake();
    } finally {
      file.close();
    }
  }

  /** Splits fresh bytes into lines; only a line that may still fit FRAME_CAP is buffered. */
  #consume(chunk: Uint8Array): void {
    let start = 0;
    for (let nl = chunk.indexOf(NL); nl >= 0 && !this.final; nl = chunk.indexOf(NL, start)) {
      this.#append(chunk.subarray(start, nl));
      this.#endLine();
      start = nl + 1;
    }
    if (start < chunk.length && !this.final) this.#append(chunk.subarray(start));
  }

  #append(bytes: Uint8Array): void {
    if (!bytes.length) return;
    this.#partialBytes += bytes.length;
    if (this.#partialBytes <= FRAME_CAP) {
      // Copy: the read buffer is reused for the next chunk.
      this.#partial.push(bytes.slice());
      return;
    }
    // Past the cap: drop what was buffered, keep only the end (the first time, the buffered part is its start).
    const before = this.#partial.length ? joinAll(this.#partial) : this.#tail;
    this.#partial = [];
    const both = concat(before, bytes);
    this.#tail = both.slice(Math.max(0, both.length - TAIL));
  }

  #endLine(): void {
    const offset = this.#committed;
    const bytes = this.#partialBytes;
    this.#committed += bytes + 1;
    const big = bytes > FRAME_CAP;
    const entry = big ? bigEntry(this.#tail, offset, bytes) : smallEntry(joinAll(this.#partial), offset);
    this.#resetPartial();
    if (!entry || entry.tick <= this.lastTick) {
      if (bytes > 0) this.skipped++;
      return;
    }
    this.entries.push(entry);
    if (entry.text !== undefined) this.#cache(entry.text.length);
  }

  #cache(bytes: number): void {
    this.#cached += bytes;
    while (this.#cached > CACHE_BUDGET && this.#evictFrom < this.entries.length - 1) {
      const old = this.entries[this.#evictFrom++]!;
      if (old.text !== undefined) {
        this.#cached -= old.text.length;
        delete old.text;
      }
    }
  }

  #resetPartial(): void {
    this.#partial = [];
    this.#partialBytes = 0;
    this.#tail = new Uint8Array(0);
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (!a.length) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function joinAll(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function smallEntry(bytes: Uint8Array, offset: number): FeedEntry | null {
  const text = dec.decode(bytes);
  const line = parseLine(text);
  return line &&
    { tick: line.tick, final: line.final, offset, bytes: bytes.length, big: false, text: line.text };
}

/** An oversized line is never parsed: its tick comes from its end; it is never taken for the last one. */
function bigEntry(tail: Uint8Array, offset: number, bytes: number): FeedEntry | null {
  const m = /"tick":(\d{1,15})\}\s*$/.exec(dec.decode(tail));
  return m ? { tick: Number(m[1]), final: false, offset, bytes, big: true } : null;
}

/**
 * A replay line's tick and whether it is the last; a line that is not a replay line is skipped. Carriage
 * returns (JSON whitespace, never inside a string) become spaces so they cannot end an SSE field early.
 */
export function parseLine(text: string): { tick: number; text: string; final: boolean } | null {
  const r = parseBounded(text, { maxBytes: FRAME_CAP, maxDepth: 128 });
  if (!r.ok) return null;
  const v = r.value as { tick?: unknown; events?: unknown } | null;
  if (!v || typeof v !== "object" || !Number.isSafeInteger(v.tick) || !Array.isArray(v.events)) return null;
  const final = v.events.some((e) => (e as { e?: unknown } | null)?.e === "verdict");
  return { tick: v.tick as number, text: text.includes("\r") ? text.replaceAll("\r", " ") : text, final };
}
