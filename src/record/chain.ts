/**
 * The black box's hash chain: every replay.jsonl line carries (as `prev`) the hash of the line before it,
 * so a line edited, dropped or inserted anywhere breaks the chain at that line; and the engine keeps the
 * chain's head (line count and last hash) in .arrow/chain, out of every worker's reach, so a line appended
 * by anyone else is seen too.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { canonical } from "../model/json.ts";
import { readRegular } from "../runtime/safe_read.ts";

/** Hash of one line's text (without its newline): the first 32 hex digits of its sha256. */
export function lineHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 32);
}

/** `prev` of the first line. */
export const GENESIS = "0";

export interface ChainHead {
  lines: number;
  head: string;
}

export const CHAIN_FILE = ".arrow/chain";

/** The head record's size on disk: fixed, so it is rewritten in place, never truncated. */
const HEAD_BYTES = 128;

/**
 * Writes the chain head. Overwritten in place at a fixed size (a rename per tick costs more than the tick,
 * and truncating a file to rewrite it makes ext4 flush it on close — milliseconds a tick): a torn write
 * reads as no head, and the chain inside replay.jsonl still holds. A head of any other size (the first
 * write, or someone else's) is truncated once.
 */
export function writeHead(runDir: string, h: ChainHead): void {
  const bytes = new TextEncoder().encode(
    JSON.stringify({ lines: h.lines, head: h.head }).padEnd(HEAD_BYTES - 1) + "\n",
  );
  using f = Deno.openSync(`${runDir}/${CHAIN_FILE}`, { write: true, create: true });
  if (bytes.length !== HEAD_BYTES || f.statSync().size !== HEAD_BYTES) f.truncateSync(0);
  let off = 0;
  while (off < bytes.length) off += f.writeSync(bytes.subarray(off));
}

export function readHead(runDir: string): ChainHead | null {
  // Read like any file a worker might have replaced: no link followed, no FIFO waited on, bounded.
  const r = readRegular(`${runDir}/${CHAIN_FILE}`, 4096);
  if (!r.ok) return null;
  try {
    const v = JSON.parse(new TextDecoder().decode(r.bytes));
    return Number.isSafeInteger(v.lines) && typeof v.head === "string" ? v : null;
  } catch {
    return null;
  }
}

/**
 * The writing side of a chain, for both modes' replay logs (the graph path's replay.jsonl, tree mode's
 * tree/replay.jsonl): each record becomes its canonical line with `prev`, the hash of the line before.
 */
export class Chain {
  head = GENESIS;
  lines = 0;

  /** The record's line (without its newline), linked to the one before it; the chain moves on. */
  link(record: object): string {
    const text = canonical({ ...record, prev: this.head });
    this.head = lineHash(text);
    this.lines++;
    return text;
  }

  /** Where a reopened log stands: its line count and the hash of its last line. */
  resumeAt(h: ChainHead): void {
    this.head = h.head;
    this.lines = h.lines;
  }

  get at(): ChainHead {
    return { lines: this.lines, head: this.head };
  }
}
