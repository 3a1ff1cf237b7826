/**
 * A follower of one run's replay.jsonl, shared by everyone watching that run: it indexes the complete lines
 * appended since the last look (tick, finality, where the line is in the file, by a byte scan that parses
 * nothing) and keeps the ready-made event frames of the recent ones within a fixed budget — one buffer per
 * line, handed to every reader; older frames are rebuilt from the file when a late reader needs them.
 * Memory is bounded whatever the run writes: a line over FRAME_CAP is never held (only its tick is kept,
 * and readers are told to fetch it), and reading is chunked and asynchronous, so neither a huge line nor a
 * FIFO planted in place of the file can stall the server. Something else says when to look (`poke`): the
 * engine's onTick for a run in this process, a file watcher for a run in another one.
 *
 * @module
 */
import { LineScan } from "./line_scan.ts";
import { openPlain } from "./plain_files.ts";

/** Largest line sent whole to a live reader; a longer one is announced and fetched from /replay instead. */
export const FRAME_CAP = 1024 * 1024;
/** Frames of recent lines kept in memory, in bytes, across the whole feed. */
export const CACHE_BUDGET = 8 * 1024 * 1024;
const READ_CHUNK = 1024 * 1024;

export interface FeedEntry {
  tick: number;
  /** The line carries the verdict: nothing follows it. */
  final: boolean;
  /** Where the line starts in replay.jsonl, and its length in bytes (without the newline). */
  offset: number;
  bytes: number;
  /** Longer than FRAME_CAP: never sent whole over the live feed. */
  big: boolean;
  /** The line's SSE frame while it is cached. */
  frame?: Uint8Array;
}

const NL = 0x0a;
const CR = 0x0d;
const enc = new TextEncoder();

export class ReplayFeed {
  readonly entries: FeedEntry[] = [];
  readonly #dir: string;
  /** Bytes of the file consumed as complete lines. */
  #committed = 0;
  /** The line still being written: its bytes while it may fit FRAME_CAP, then only its length and scan. */
  #partial: Uint8Array[] = [];
  #partialBytes = 0;
  #scan = new LineScan();
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

  /** The SSE frame of a line that is not big: cached, or rebuilt from the file (null if gone). */
  async frame(e: FeedEntry): Promise<Uint8Array | null> {
    if (e.frame !== undefined) return e.frame;
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
      return frameOf(e.tick, buf);
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
    this.#scan.push(bytes);
    this.#partialBytes += bytes.length;
    // Copy while the line may still fit (the read buffer is reused); past the cap, hold nothing.
    if (this.#partialBytes <= FRAME_CAP) this.#partial.push(bytes.slice());
    else this.#partial = [];
  }

  #endLine(): void {
    const offset = this.#committed;
    const bytes = this.#partialBytes;
    this.#committed += bytes + 1;
    const head = this.#scan.finish();
    const big = bytes > FRAME_CAP;
    const line = big || !head ? null : joinAll(this.#partial);
    this.#resetPartial();
    if (!head || head.tick <= this.lastTick) {
      if (bytes > 0) this.skipped++;
      return;
    }
    const entry: FeedEntry = { tick: head.tick, final: head.final, offset, bytes, big };
    if (line) entry.frame = frameOf(head.tick, line);
    this.entries.push(entry);
    if (entry.frame) this.#cache(entry.frame.length);
  }

  #cache(bytes: number): void {
    this.#cached += bytes;
    while (this.#cached > CACHE_BUDGET && this.#evictFrom < this.entries.length - 1) {
      const old = this.entries[this.#evictFrom++]!;
      if (old.frame !== undefined) {
        this.#cached -= old.frame.length;
        delete old.frame;
      }
    }
  }

  #resetPartial(): void {
    this.#partial = [];
    this.#partialBytes = 0;
    this.#scan = new LineScan();
  }
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

/**
 * One `tick` event carrying the line as its data. Carriage returns (JSON whitespace, never inside a string)
 * become spaces, so they cannot end an SSE field early.
 */
export function frameOf(tick: number, line: Uint8Array): Uint8Array {
  const head = enc.encode(`id: ${tick}\nevent: tick\ndata: `);
  const out = new Uint8Array(head.length + line.length + 2);
  out.set(head);
  out.set(line, head.length);
  if (line.includes(CR)) {
    for (let i = head.length; i < head.length + line.length; i++) if (out[i] === CR) out[i] = 0x20;
  }
  out[out.length - 2] = NL;
  out[out.length - 1] = NL;
  return out;
}
