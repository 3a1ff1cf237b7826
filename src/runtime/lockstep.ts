/**
 * The engine side of the lock-step worker protocol (see src/workers/lib/protocol.ts): hand a worker tick N,
 * wait for its acknowledgement. This handshake is what keeps mock runs byte-identical whatever the pace.
 *
 * @module
 */
import type { StreamEvent } from "../model/state.ts";
import type { Spawned } from "./proc/proc.ts";

export interface Ack {
  ack: number;
  tokens: number;
  done: boolean;
  /** Indices of faults that fired this tick. */
  fired: number[];
}

export class Lockstep {
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #reader: ReadableStreamDefaultReader<string>;
  #buf = "";
  #closed = false;

  constructor(readonly proc: Spawned) {
    this.#writer = proc.child.stdin.getWriter();
    this.#reader = proc.child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** Sends one line of JSON text without waiting for an answer (the config handshake). */
  sendLine(json: string): void {
    if (this.#closed) return;
    this.#writer.write(new TextEncoder().encode(json + "\n")).catch(() => {});
  }

  /** Sends a tick and waits for the ack; null when the worker ended (or broke the protocol) first. */
  async tick(tick: number, events: StreamEvent[], finish: boolean, timeoutMs: number): Promise<Ack | null> {
    if (this.#closed) return null;
    try {
      await this.#writer.write(new TextEncoder().encode(JSON.stringify({ tick, events, finish }) + "\n"));
    } catch {
      return null;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<null>((r) => (timer = setTimeout(() => r(null), timeoutMs)));
    const line = await Promise.race([this.#line(), timeout]);
    clearTimeout(timer);
    if (line === null) return null;
    try {
      const a = JSON.parse(line) as Ack;
      if (a.ack !== tick) return null;
      const fired = Array.isArray(a.fired) ? a.fired.filter((i) => Number.isSafeInteger(i) && i >= 0) : [];
      const tokens = Number(a.tokens);
      return {
        ack: a.ack,
        tokens: Number.isFinite(tokens) && tokens > 0 ? Math.round(tokens) : 0,
        done: a.done === true,
        fired,
      };
    } catch {
      return null;
    }
  }

  async #line(): Promise<string | null> {
    for (;;) {
      const nl = this.#buf.indexOf("\n");
      if (nl >= 0) {
        const line = this.#buf.slice(0, nl);
        this.#buf = this.#buf.slice(nl + 1);
        return line;
      }
      const { value, done } = await this.#reader.read();
      if (done) return null;
      this.#buf += value;
    }
  }

  /** Releases the pipes (after the process ended or was stopped). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#writer.close().catch(() => {});
    await this.#reader.cancel().catch(() => {});
  }
}
