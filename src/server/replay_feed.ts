/**
 * A follower of one run's replay.jsonl: reads the complete lines appended since the last look, keeps them,
 * and hands each new one to whoever follows. Something else says when to look (`poke`): the engine's
 * onTick for a run in this process, a file watcher for a run in another one.
 *
 * @module
 */

export interface FeedLine {
  tick: number;
  /** The line exactly as in replay.jsonl (canonical JSON, no newline). */
  text: string;
  /** The line carries the verdict: nothing follows it. */
  final: boolean;
}

export interface Follower {
  line(l: FeedLine): void;
  /** The run ended, or the server is closing. */
  end(): void;
}

const NL = 0x0a;
const dec = new TextDecoder();

export class ReplayFeed {
  readonly lines: FeedLine[] = [];
  readonly #path: string;
  /** Bytes of the file consumed as complete lines. */
  #committed = 0;
  /** Bytes after the last newline: a line still being written. */
  #rest: Uint8Array = new Uint8Array(0);
  #followers = new Set<Follower>();
  #closed = false;

  constructor(runDir: string) {
    this.#path = `${runDir}/replay.jsonl`;
    this.poke();
  }

  get final(): boolean {
    return this.lines.at(-1)?.final ?? false;
  }

  get lastTick(): number {
    return this.lines.at(-1)?.tick ?? -1;
  }

  /** Reads what was appended since the last call and passes new complete lines on. Cheap when idle. */
  poke(): void {
    if (this.#closed || this.final) return;
    const fresh = this.#read();
    for (const text of fresh) {
      const line = parseLine(text);
      if (!line || line.tick <= this.lastTick) continue;
      this.lines.push(line);
      for (const f of this.#followers) f.line(line);
      if (line.final) this.#endAll();
    }
  }

  /**
   * Hands `f` every kept line after tick `after`, then each new one. Returns the unsubscribe function;
   * `f.end()` is called (once) when the run is already over, when it ends, or when the feed closes.
   */
  follow(after: number, f: Follower): () => void {
    for (const l of this.lines) if (l.tick > after) f.line(l);
    if (this.final || this.#closed) {
      f.end();
      return () => {};
    }
    this.#followers.add(f);
    return () => this.#followers.delete(f);
  }

  get followers(): number {
    return this.#followers.size;
  }

  close(): void {
    this.#closed = true;
    this.#endAll();
  }

  #endAll(): void {
    const all = [...this.#followers];
    this.#followers.clear();
    for (const f of all) f.end();
  }

  #read(): string[] {
    let file: Deno.FsFile;
    try {
      file = Deno.openSync(this.#path, { read: true });
    } catch {
      return [];
    }
    try {
      const size = file.statSync().size;
      const seen = this.#committed + this.#rest.length;
      if (size < seen) {
        // A resume cuts a torn last line off; whatever we held of it is gone too.
        this.#rest = new Uint8Array(0);
        if (size < this.#committed) return [];
      }
      const from = this.#committed + this.#rest.length;
      if (size === from) return [];
      const chunk = new Uint8Array(size - from);
      file.seekSync(from, Deno.SeekMode.Start);
      let off = 0;
      while (off < chunk.length) {
        const n = file.readSync(chunk.subarray(off));
        if (n === null || n === 0) break;
        off += n;
      }
      const bytes = concat(this.#rest, chunk.subarray(0, off));
      const end = bytes.lastIndexOf(NL);
      if (end < 0) {
        this.#rest = bytes;
        return [];
      }
      this.#rest = bytes.slice(end + 1);
      this.#committed += end + 1;
      return dec.decode(bytes.subarray(0, end)).split("\n").filter((l) => l.trim() !== "");
    } finally {
      file.close();
    }
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (!a.length) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** A replay line's tick and whether it is the last; a line that is not a replay line is skipped. */
export function parseLine(text: string): FeedLine | null {
  try {
    const v = JSON.parse(text) as { tick?: unknown; events?: unknown };
    if (typeof v.tick !== "number" || !Array.isArray(v.events)) return null;
    const final = v.events.some((e) => (e as { e?: unknown } | null)?.e === "verdict");
    return { tick: v.tick, text, final };
  } catch {
    return null;
  }
}
