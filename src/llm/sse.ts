/**
 * Server-sent events, read defensively: yields the `data` of each event (multi-line data joined by "\n"),
 * skips comments (OpenRouter's ": OPENROUTER PROCESSING" keep-alives) and other fields, and refuses a line
 * longer than a bound instead of buffering without end.
 *
 * @module
 */
import { LlmError } from "./errors.ts";

export const MAX_SSE_LINE = 1 << 20;

/** Splits a byte stream into lines (LF, CRLF or CR), each at most `maxLine` characters. */
export async function* lines(
  body: ReadableStream<Uint8Array>,
  maxLine = MAX_SSE_LINE,
): AsyncGenerator<string> {
  const dec = new TextDecoder();
  let buf = "";
  for await (const chunk of body) {
    buf += dec.decode(chunk, { stream: true });
    let i: number;
    while ((i = buf.search(/\r\n|\r|\n/)) >= 0) {
      // A lone CR at the very end may be the first half of CRLF: wait for the next chunk.
      if (buf[i] === "\r" && i === buf.length - 1) break;
      const line = buf.slice(0, i);
      buf = buf.slice(buf[i] === "\r" && buf[i + 1] === "\n" ? i + 2 : i + 1);
      yield line;
    }
    if (buf.length > maxLine) {
      throw new LlmError(
        `Cannot read the event stream: a line exceeds ${maxLine} characters`,
        "too_large",
        false,
      );
    }
  }
  buf += dec.decode();
  if (buf) yield buf;
}

/** The data payload of each event in an SSE stream. An event cut off at the end is still yielded. */
export async function* sseData(
  body: ReadableStream<Uint8Array>,
  maxLine = MAX_SSE_LINE,
): AsyncGenerator<string> {
  let data: string[] = [];
  for await (const line of lines(body, maxLine)) {
    if (line === "") {
      if (data.length) yield data.join("\n");
      data = [];
    } else if (line.startsWith("data:")) {
      data.push(line.slice(line[5] === " " ? 6 : 5));
    }
  }
  if (data.length) yield data.join("\n");
}
