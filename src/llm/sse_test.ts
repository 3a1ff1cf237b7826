import { deepEqual, equal } from "node:assert/strict";
import { LlmError } from "./errors.ts";
import { sseData } from "./sse.ts";

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(c) {
      for (const ch of chunks) c.enqueue(enc.encode(ch));
      c.close();
    },
  });
}

async function all(s: ReadableStream<Uint8Array>, max?: number): Promise<string[]> {
  const out: string[] = [];
  for await (const d of sseData(s, max)) out.push(d);
  return out;
}

Deno.test("sseData() joins events split across chunks, CRLF included, and skips comments", async () => {
  const got = await all(
    streamOf(
      ": keep-alive\r\n\r\nda",
      'ta: {"a":1}\r',
      "\n\r\ndata: x\ndata: y\n\nevent: e\ndata: [DONE]\n\n",
    ),
  );
  deepEqual(got, ['{"a":1}', "x\ny", "[DONE]"]);
});

Deno.test("sseData() yields an event cut off at the end of the stream", async () => {
  deepEqual(await all(streamOf('data: {"partial"')), ['{"partial"']);
});

Deno.test("sseData() refuses a line longer than its bound", async () => {
  let err: unknown;
  try {
    await all(streamOf("data: " + "x".repeat(100)), 50);
  } catch (e) {
    err = e;
  }
  equal((err as LlmError).kind, "too_large");
});
