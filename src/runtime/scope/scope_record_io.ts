/**
 * The scope record's files written and read in bounded pieces: a tick's changes and a snapshot are
 * streamed out as JSON lines of at most LINE_CHARS characters (a scope of 100,000 files is a few dozen
 * lines, never one string of its size), and read back line by line from 1 MiB chunks. Below that size a
 * tick's line is byte for byte what `JSON.stringify({ tick, changes })` gives.
 *
 * @module
 */

/** A line is closed once it holds this many characters; the next one carries on where it stopped. */
export const LINE_CHARS = 1 << 20;
/** Bytes handed to the OS at once. */
const FLUSH_CHARS = 1 << 20;
/** Longer lines than this (only a foreign or legacy file has them) are skipped by readLines(). */
export const MAX_READ_LINE = 256 << 20;

const enc = new TextEncoder();

/** Text written to a file in bounded chunks: appended, or to a temp file renamed into place on close. */
export class ChunkWriter {
  #f: Deno.FsFile | null = null;
  #parts: string[] = [];
  #chars = 0;

  private constructor(readonly path: string, readonly tmp: string | null) {}

  static append(path: string): ChunkWriter {
    return new ChunkWriter(path, null);
  }

  /** Replaces `path` atomically on close(): until then the old content stays. */
  static replace(path: string): ChunkWriter {
    const slash = path.lastIndexOf("/");
    return new ChunkWriter(path, `${path.slice(0, slash + 1)}.${path.slice(slash + 1)}.${Deno.pid}.tmp`);
  }

  write(text: string): void {
    this.#parts.push(text);
    if ((this.#chars += text.length) >= FLUSH_CHARS) this.#flush();
  }

  #flush(): void {
    if (!this.#parts.length) return;
    this.#f ??= Deno.openSync(
      this.tmp ?? this.path,
      this.tmp ? { write: true, create: true, truncate: true } : { write: true, create: true, append: true },
    );
    const bytes = enc.encode(this.#parts.join(""));
    this.#parts = [];
    this.#chars = 0;
    let off = 0;
    while (off < bytes.length) off += this.#f.writeSync(bytes.subarray(off));
  }

  /** Writes what is left; `sync` fsyncs before a replacing rename. Appends are handed to the OS only. */
  close(sync: boolean): void {
    if (this.tmp) this.#f ??= Deno.openSync(this.tmp, { write: true, create: true, truncate: true });
    this.#flush();
    if (this.tmp && sync) this.#f?.syncSync();
    this.#f?.close();
    this.#f = null;
    if (this.tmp) Deno.renameSync(this.tmp, this.path);
  }

  /** Gives up: closes and removes a temp file, leaving the old content in place. */
  abort(): void {
    this.#f?.close();
    this.#f = null;
    if (this.tmp) {
      try {
        Deno.removeSync(this.tmp);
      } catch {
        // never created
      }
    }
  }
}

/** The lines of a file, read in 1 MiB chunks (a missing file has none). */
export function* readLines(path: string): Generator<string> {
  let f: Deno.FsFile;
  try {
    f = Deno.openSync(path, { read: true });
  } catch {
    return;
  }
  const dec = new TextDecoder();
  const buf = new Uint8Array(1 << 20);
  let carry: string[] = [];
  let carried = 0;
  try {
    for (;;) {
      const n = f.readSync(buf);
      const text = n === null ? dec.decode() : dec.decode(buf.subarray(0, n), { stream: true });
      let from = 0;
      for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", from)) {
        const tail = text.slice(from, nl);
        if (carried + tail.length <= MAX_READ_LINE) yield carry.length ? carry.join("") + tail : tail;
        [carry, carried, from] = [[], 0, nl + 1];
      }
      if (from < text.length) {
        carried += text.length - from;
        if (carried <= MAX_READ_LINE) carry.push(text.slice(from));
        else carry = [];
      }
      if (n === null) break;
    }
    if (carry.length && carried <= MAX_READ_LINE) yield carry.join("");
  } finally {
    f.close();
  }
}

/** True for keys a JS object orders first, ascending (array indices), as JSON.stringify then writes them. */
export const isIndex = (k: string): boolean => /^(?:0|[1-9][0-9]{0,9})$/.test(k) && Number(k) <= 4294967294;

/** Keys in the order a plain object built by inserting them in this order would list them. */
export function objectOrder<T>(items: readonly T[], key: (t: T) => string): T[] {
  const index = items.filter((t) => isIndex(key(t)));
  if (!index.length) return [...items];
  index.sort((a, b) => Number(key(a)) - Number(key(b)));
  return [...index, ...items.filter((t) => !isIndex(key(t)))];
}

/**
 * Streams objects of the form `{<head>,"<field>":{"<group>":{"<key>":<value>,...},...}}` as lines of at
 * most LINE_CHARS characters; a group cut by a line end carries on in the next line (readers fold lines).
 */
export class GroupLines {
  #line = 0;
  #group: string | null = null;
  #firstGroup = true;
  #firstEntry = true;

  constructor(readonly out: ChunkWriter, readonly head: string, readonly field: string) {}

  #open(): void {
    const text = `{${this.head},${JSON.stringify(this.field)}:{`;
    this.out.write(text);
    this.#line = text.length;
    this.#firstGroup = true;
  }

  group(id: string): void {
    if (this.#group !== null) this.#emit("}");
    else if (!this.#line) this.#open();
    this.#group = id;
    this.#startGroup();
  }

  #startGroup(): void {
    this.#emit(`${this.#firstGroup ? "" : ","}${JSON.stringify(this.#group)}:{`);
    this.#firstGroup = false;
    this.#firstEntry = true;
  }

  /** One entry of the current group; `json` is its value already as JSON. */
  entry(key: string, json: string): void {
    if (this.#line >= LINE_CHARS) {
      this.#emit("}}}\n");
      this.#open();
      this.#startGroup();
    }
    this.#emit(`${this.#firstEntry ? "" : ","}${JSON.stringify(key)}:${json}`);
    this.#firstEntry = false;
  }

  #emit(text: string): void {
    this.out.write(text);
    this.#line += text.length;
  }

  /** Closes the last line (a line with no group is written as `{...,"field":{}}`). */
  end(): void {
    if (!this.#line) this.#open();
    this.#emit(this.#group !== null ? "}}}\n" : "}}\n");
    this.#group = null;
    this.#line = 0;
  }
}
