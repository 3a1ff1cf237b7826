/**
 * Tails a JSONL file a worker appends to: reads from the last offset (never through a symlink, at most a few
 * MiB per call), hands back complete lines only (a half-written last line waits for the next read), skips
 * and counts malformed or oversized lines, and starts over when the file shrinks (truncated or replaced).
 *
 * @module
 */
import { parseBounded } from "../bounded_json.ts";
import { readRange } from "../safe_read.ts";

/** Longest metrics line kept; a longer one is skipped and counted. */
export const MAX_LINE = 64 << 10;
const LINE_LIMITS = { maxBytes: MAX_LINE, maxDepth: 16 } as const;
/** Most bytes read per call, so a flood of lines is taken in over several ticks. */
const MAX_READ = 4 << 20;

export class JsonlTail {
  offset = 0;
  malformed = 0;
  /** True while skipping the rest of an oversized line. */
  #skipping = false;

  constructor(readonly path: string) {}

  /** Skips everything currently in the file (used after a resume, when the state already holds it). */
  skipToEnd(): void {
    try {
      this.offset = Deno.lstatSync(this.path).size;
    } catch {
      this.offset = 0;
    }
  }

  read(): Record<string, unknown>[] {
    const r = readRange(this.path, this.offset, MAX_READ);
    if (!r.ok) return [];
    if (r.size < this.offset) {
      this.offset = 0;
      this.#skipping = false;
      return this.read();
    }
    const buf = r.bytes;
    const out: Record<string, unknown>[] = [];
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(10, start);
      if (nl < 0) break;
      if (this.#skipping) this.#skipping = false;
      else this.#take(buf.subarray(start, nl), out);
      start = nl + 1;
    }
    // A partial line longer than a whole line may be: count it once and skip it up to its newline.
    if (!this.#skipping && buf.length - start > MAX_LINE) {
      this.malformed++;
      this.#skipping = true;
      start = buf.length;
    } else if (this.#skipping) start = buf.length;
    this.offset += start;
    return out;
  }

  #take(line: Uint8Array, out: Record<string, unknown>[]): void {
    if (line.length === 0 || line.every((b) => b === 32 || b === 9 || b === 13)) return;
    const v = parseBounded(line, LINE_LIMITS);
    if (v.ok && v.value && typeof v.value === "object" && !Array.isArray(v.value)) {
      out.push(v.value as Record<string, unknown>);
    } else this.malformed++;
  }
}

/** Most metric points handed to the engine per tick: a flood of lines is thinned, never dropped whole. */
export const MAX_POINTS = 1000;

/**
 * At most `max` of `points`, in order: always the first, the last and the best (by `direction`), the rest
 * evenly spaced. Thinning keeps what the gates read (the best, where the trajectory ends) while a worker
 * writing millions of lines cannot flood the black box.
 */
export function thinPoints<P extends { step: number; value: number }>(
  points: P[],
  max: number,
  direction: "maximize" | "minimize",
): P[] {
  if (points.length <= max) return points;
  let best = 0;
  for (let i = 1; i < points.length; i++) {
    const v = points[i]!.value;
    if (direction === "maximize" ? v > points[best]!.value : v < points[best]!.value) best = i;
  }
  const keep = new Set([0, points.length - 1, best]);
  const room = max - keep.size;
  for (let k = 0; k < room; k++) keep.add(Math.round(((k + 1) * (points.length - 1)) / (room + 1)));
  return [...keep].sort((a, b) => a - b).map((i) => points[i]!);
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
