/**
 * Watches an SSE stream as it passes through (the proxy forwards every byte untouched): collects the
 * streamed content (bounded), the finish reason and the last `usage` object, tolerating anything malformed.
 *
 * @module
 */
import { readUsage, type Usage } from "./types.ts";

export class SseTap {
  content = "";
  finish: string | null = null;
  usage: Usage | null = null;
  done = false;
  #buf = "";
  readonly #dec = new TextDecoder();

  constructor(readonly maxContent: number, readonly maxLine = 1 << 20) {}

  push(chunk: Uint8Array): void {
    this.#buf += this.#dec.decode(chunk, { stream: true });
    let i: number;
    while ((i = this.#buf.indexOf("\n")) >= 0) {
      this.#line(this.#buf.slice(0, i).replace(/\r$/, ""));
      this.#buf = this.#buf.slice(i + 1);
    }
    // A line longer than any sane event is dropped rather than buffered without end.
    if (this.#buf.length > this.maxLine) this.#buf = "";
  }

  end(): void {
    this.#buf += this.#dec.decode();
    if (this.#buf) this.#line(this.#buf);
    this.#buf = "";
  }

  #line(line: string): void {
    if (!line.startsWith("data:")) return;
    const data = line.slice(line[5] === " " ? 6 : 5).trim();
    if (data === "[DONE]") {
      this.done = true;
      return;
    }
    let j: Record<string, unknown>;
    try {
      j = JSON.parse(data);
    } catch {
      return;
    }
    if (!j || typeof j !== "object") return;
    this.usage = readUsage(j.usage) ?? this.usage;
    const choice = Array.isArray(j.choices) ? j.choices[0] as Record<string, unknown> | undefined : undefined;
    if (!choice || typeof choice !== "object") return;
    const delta = choice.delta as Record<string, unknown> | undefined;
    if (delta && typeof delta.content === "string" && this.content.length < this.maxContent) {
      this.content += delta.content.slice(0, this.maxContent - this.content.length);
    }
    if (typeof choice.finish_reason === "string") this.finish = choice.finish_reason;
  }
}
