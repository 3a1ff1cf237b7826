import { deepEqual, equal, ok } from "node:assert/strict";
import { backoffMs, mulberry32, parseRetryAfter, seedOf } from "./backoff.ts";

Deno.test("backoffMs() doubles up to its cap, jittered within the upper half, the same for the same seed", () => {
  const a = mulberry32(seedOf("N3:1"));
  const waits = [0, 1, 2, 3, 10].map((k) => backoffMs(k, a, { baseMs: 100, maxMs: 1000 }));
  [100, 200, 400, 800, 1000].forEach((ceil, i) =>
    ok(waits[i]! >= ceil / 2 && waits[i]! <= ceil, `${i}: ${waits[i]}`)
  );
  const b = mulberry32(seedOf("N3:1"));
  deepEqual([0, 1, 2, 3, 10].map((k) => backoffMs(k, b, { baseMs: 100, maxMs: 1000 })), waits);
});

Deno.test("parseRetryAfter() reads seconds and HTTP dates", () => {
  equal(parseRetryAfter("3", 0), 3000);
  equal(parseRetryAfter("0.5", 0), 500);
  equal(
    parseRetryAfter("Wed, 21 Oct 2015 07:28:10 GMT", Date.parse("Wed, 21 Oct 2015 07:28:00 GMT")),
    10_000,
  );
  equal(parseRetryAfter("soon", 0), null);
  equal(parseRetryAfter(null, 0), null);
});
