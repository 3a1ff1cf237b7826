/**
 * The worker's stdin as lines, shared by the config handshake (config.ts) and the tick loop (protocol.ts),
 * and the stream event both carry. Dependency-free so it runs with --no-remote --no-npm.
 *
 * @module
 */

/** A checkpoint delivered along a stream edge. */
export interface StreamEvent {
  from: string;
  step: number;
  file: string;
}

/** Lines from stdin, shared by the config handshake and the tick loop. */
export class StdinLines {
  #reader = Deno.stdin.readable.pipeThrough(new TextDecoderStream()).getReader();
  #buf = "";

  /** The next non-empty line, or null at EOF. */
  async next(): Promise<string | null> {
    for (;;) {
      const nl = this.#buf.indexOf("\n");
      if (nl >= 0) {
        const line = this.#buf.slice(0, nl);
        this.#buf = this.#buf.slice(nl + 1);
        if (line.trim()) return line;
        continue;
      }
      const { value, done } = await this.#reader.read();
      if (done) return null;
      this.#buf += value;
    }
  }
}

export const stdinLines = new StdinLines();
