/**
 * What the live feed needs to know of a replay line — its top-level `tick`, and whether one of its events
 * is the verdict — read by one pass over the bytes, fed in pieces, with constant memory: no string is
 * built and nothing is parsed, so a line of any size costs the same per byte and is never held.
 *
 * @module
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const KEY_MAX = 16;

/** Incremental scanner for one line: `push()` its bytes in any pieces, then `finish()`. */
export class LineScan {
  #depth = 0;
  /** Container kinds at depths 1..4 (true: object); deeper ones are only counted. */
  #isObject: boolean[] = [];
  #inString = false;
  #escape = false;
  /** The string being read, while it is short and unescaped (keys and the values we look for are). */
  #str: number[] = [];
  #strPlain = true;
  #expectKey = false;
  /** The key naming the value at depth 1 and at depth 3 (an event's field). */
  #key1: string | null = null;
  #key3: string | null = null;
  /** The key whose value comes next, after a colon. */
  #valueOf: string | null = null;
  /** The depth-2 container is the `events` array. */
  #inEvents = false;
  #num: number[] | null = null;
  #tick: number | null = null;
  #final = false;
  #broken = false;
  #opened = false;

  push(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i]!;
      if (this.#inString) {
        if (this.#escape) this.#escape = false;
        else if (b === BACKSLASH) {
          this.#escape = true;
          this.#strPlain = false;
        } else if (b === QUOTE) {
          this.#inString = false;
          this.#endString();
        } else if (this.#str.length < KEY_MAX) this.#str.push(b);
        else this.#strPlain = false;
        continue;
      }
      if (this.#num) {
        if ((b >= 0x30 && b <= 0x39) || b === 0x2d || b === 0x2e || b === 0x2b || b === 0x65 || b === 0x45) {
          if (this.#num.length < 24) this.#num.push(b);
          continue;
        }
        this.#endNumber();
      }
      this.#structural(b);
    }
  }

  /** The line's tick and finality, or null when it is not a complete top-level object with a tick. */
  finish(): { tick: number; final: boolean } | null {
    if (this.#num) this.#endNumber();
    if (this.#broken || this.#inString || this.#depth !== 0 || this.#tick === null) return null;
    return { tick: this.#tick, final: this.#final };
  }

  #structural(b: number): void {
    const d = this.#depth;
    switch (b) {
      case QUOTE:
        this.#inString = true;
        this.#str = [];
        this.#strPlain = true;
        return;
      case 0x7b: // {
      case 0x5b: // [
        if (d === 1) this.#inEvents = b === 0x5b && this.#valueOf === "events";
        if (d === 0) {
          // One top-level object per line.
          if (b !== 0x7b || this.#opened) this.#broken = true;
          this.#opened = true;
        }
        this.#depth++;
        if (this.#depth <= 4) this.#isObject[this.#depth] = b === 0x7b;
        this.#expectKey = b === 0x7b;
        this.#valueOf = null;
        return;
      case 0x7d: // }
      case 0x5d: // ]
        if (d === 0) this.#broken = true;
        this.#depth--;
        this.#expectKey = false;
        this.#valueOf = null;
        return;
      case 0x3a: // :
        this.#valueOf = d === 1 ? this.#key1 : d === 3 ? this.#key3 : null;
        return;
      case 0x2c: // ,
        this.#expectKey = d <= 4 && this.#isObject[d] === true;
        this.#valueOf = null;
        return;
      default:
        if (((b >= 0x30 && b <= 0x39) || b === 0x2d) && d === 1 && this.#valueOf === "tick") this.#num = [b];
        else if (b > 0x20 && d === 0) this.#broken = true;
    }
  }

  #endString(): void {
    const d = this.#depth;
    const s = this.#strPlain ? String.fromCharCode(...this.#str) : null;
    if (this.#expectKey) {
      if (d === 1) this.#key1 = s;
      else if (d === 3) this.#key3 = s;
      this.#expectKey = false;
      return;
    }
    if (d === 3 && this.#inEvents && this.#valueOf === "e" && s === "verdict") this.#final = true;
    this.#valueOf = null;
  }

  #endNumber(): void {
    const text = String.fromCharCode(...this.#num!);
    this.#num = null;
    this.#valueOf = null;
    const n = Number(text);
    if (/^-?\d{1,15}$/.test(text) && Number.isSafeInteger(n)) this.#tick = n;
    else this.#broken = true;
  }
}
