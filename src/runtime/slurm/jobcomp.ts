/**
 * The job completion file (jobcomp/filetxt): slurmctld appends one line per ended job, and it outlives the
 * 300 s after which squeue forgets a job. Read incrementally with a bounded amount per poll; only records of
 * jobs the caller asks about are kept, so a long history costs reading time, not memory.
 *
 * @module
 */
import { parseJobcompLine } from "./parse.ts";
import type { JobId, JobView } from "./types.ts";

/** Bytes read per call; a large backlog is caught up over several polls instead of stalling one. */
const CHUNK = 4 * 1024 * 1024;
/** A line longer than this is not a jobcomp record; it is dropped. */
const MAX_LINE = 64 * 1024;

export class JobcompTail {
  #offset = 0;
  #partial = "";

  constructor(readonly path: string) {}

  /** True while unread bytes remain after the last call. */
  behind = false;

  /** Starts after what the file holds now: only jobs ending from here on are read by `read`. */
  skipToEnd(): void {
    try {
      this.#offset = Deno.statSync(this.path).size;
    } catch {
      this.#offset = 0;
    }
    this.#partial = "";
  }

  /** Reads up to one chunk of new lines and returns the records of wanted jobs. Never throws. */
  async read(want: (id: JobId) => boolean, seenAt: number): Promise<JobView[]> {
    let file: Deno.FsFile;
    try {
      file = await Deno.open(this.path, { read: true });
    } catch {
      this.behind = false;
      return [];
    }
    try {
      const size = (await file.stat()).size;
      if (size < this.#offset) {
        // truncated or replaced (a restarted cluster): start over
        this.#offset = 0;
        this.#partial = "";
      }
      if (size === this.#offset) {
        this.behind = false;
        return [];
      }
      await file.seek(this.#offset, Deno.SeekMode.Start);
      const buf = new Uint8Array(Math.min(CHUNK, size - this.#offset));
      let got = 0;
      while (got < buf.length) {
        const n = await file.read(buf.subarray(got));
        if (n === null || n === 0) break;
        got += n;
      }
      this.#offset += got;
      this.behind = this.#offset < size;
      const text = this.#partial + new TextDecoder().decode(buf.subarray(0, got));
      const lines = text.split("\n");
      this.#partial = lines.pop() ?? "";
      if (this.#partial.length > MAX_LINE) this.#partial = "";
      const out: JobView[] = [];
      for (const line of lines) {
        if (line.length > MAX_LINE) continue;
        const v = parseJobcompLine(line, seenAt);
        if (v && want(v.jobId)) out.push(v);
      }
      return out;
    } catch {
      return [];
    } finally {
      file.close();
    }
  }

  /** Reads the whole file once from the start for the given jobs (used when adopting old jobs). */
  static async scan(path: string, ids: ReadonlySet<JobId>, seenAt: number): Promise<Map<JobId, JobView>> {
    const tail = new JobcompTail(path);
    const found = new Map<JobId, JobView>();
    do {
      for (const v of await tail.read((id) => ids.has(id), seenAt)) found.set(v.jobId, v);
    } while (tail.behind);
    return found;
  }
}
