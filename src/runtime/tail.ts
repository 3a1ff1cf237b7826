/**
 * Tails a JSONL file a worker appends to: reads from the last offset, hands back complete lines only (a
 * half-written last line waits for the next read), skips and counts malformed lines, and starts over when
 * the file shrinks (truncated or replaced).
 *
 * @module
 */

export class JsonlTail {
  offset = 0;
  malformed = 0;

  constructor(readonly path: string) {}

  /** Skips everything currently in the file (used after a resume, when the state already holds it). */
  skipToEnd(): void {
    try {
      this.offset = Deno.statSync(this.path).size;
    } catch {
      this.offset = 0;
    }
  }

  read(): Record<string, unknown>[] {
    let size: number;
    try {
      size = Deno.statSync(this.path).size;
    } catch {
      return [];
    }
    if (size < this.offset) this.offset = 0;
    if (size === this.offset) return [];
    using f = Deno.openSync(this.path, { read: true });
    f.seekSync(this.offset, Deno.SeekMode.Start);
    const buf = new Uint8Array(size - this.offset);
    let got = 0;
    while (got < buf.length) {
      const n = f.readSync(buf.subarray(got));
      if (n === null || n === 0) break;
      got += n;
    }
    const end = buf.subarray(0, got).lastIndexOf(10);
    if (end < 0) return [];
    this.offset += end + 1;
    const out: Record<string, unknown>[] = [];
    for (const line of new TextDecoder().decode(buf.subarray(0, end)).split("\n")) {
      if (!line.trim()) continue;
      try {
        const v = JSON.parse(line);
        if (v && typeof v === "object" && !Array.isArray(v)) out.push(v);
        else this.malformed++;
      } catch {
        this.malformed++;
      }
    }
    return out;
  }
}

/** Metric points (step, value) from metrics lines; lines lacking either are skipped and counted. */
export function metricPoints(
  rows: Record<string, unknown>[],
  metric: string,
): { points: { step: number; value: number }[]; skipped: number } {
  const points: { step: number; value: number }[] = [];
  let skipped = 0;
  for (const r of rows) {
    const step = r.step;
    const value = r[metric];
    if (
      typeof step === "number" && Number.isFinite(step) && typeof value === "number" && Number.isFinite(value)
    ) {
      points.push({ step, value });
    } else skipped++;
  }
  return { points, skipped };
}
