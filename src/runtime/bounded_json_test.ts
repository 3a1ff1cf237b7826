import { deepEqual, equal, match } from "node:assert/strict";
import { type Bounded, exceedsBytes, parseBounded } from "./bounded_json.ts";

const MANIFEST = { maxBytes: 1 << 20, maxDepth: 32 };

function error(r: Bounded): string {
  if (r.ok) throw new Error(`expected a rejection, got ${JSON.stringify(r.value)}`);
  return r.error;
}

Deno.test("parseBounded() returns the value of well-formed JSON within the limits", () => {
  const text = '{"node":"N4","score":0.91,"tags":["a","b"],"nested":{"x":[1,[2,[3]]]}}';
  deepEqual(parseBounded(text, MANIFEST), { ok: true, value: JSON.parse(text) });
  deepEqual(parseBounded(new TextEncoder().encode("[1,2]"), MANIFEST), { ok: true, value: [1, 2] });
  deepEqual(parseBounded("7", MANIFEST), { ok: true, value: 7 });
});

Deno.test("parseBounded() refuses input over maxBytes, counting UTF-8 bytes", () => {
  const limits = { maxBytes: 10, maxDepth: 4 };
  equal(parseBounded('"12345678"', limits).ok, true);
  // Four two-byte letters plus quotes are 10 bytes; five are 12.
  equal(parseBounded('"éééé"', limits).ok, true);
  match(error(parseBounded('"ééééé"', limits)), /larger than the limit of 10 bytes/);
  match(error(parseBounded(new Uint8Array(11), limits)), /larger than the limit of 10 bytes/);
  // 1 + 2 + 3 + 4 bytes: a one-, two-, three- and four-byte character.
  const mixed = "a\u00e9\u20ac\u{1F600}";
  equal(exceedsBytes(mixed, 10), false);
  equal(exceedsBytes(mixed, 9), true);
});

Deno.test("parseBounded() refuses nesting deeper than maxDepth before parsing, naming where", () => {
  const limits = { maxBytes: 1 << 22, maxDepth: 32 };
  equal(parseBounded("[".repeat(32) + "]".repeat(32), limits).ok, true);
  equal(
    error(parseBounded("[".repeat(33) + "]".repeat(33), limits)),
    "Cannot parse JSON: nesting deeper than 32 levels at line 1, column 33",
  );
  const deep = "[".repeat(200_000) + "]".repeat(200_000);
  match(error(parseBounded(deep, limits)), /nesting deeper than 32 levels/);
  match(error(parseBounded('{\n "a":\n  {"b": [[[', { maxBytes: 100, maxDepth: 3 })), /line 3, column 10/);
});

Deno.test("parseBounded() does not count brackets inside strings, even after escaped quotes", () => {
  const text = JSON.stringify({ s: "[[[[{{{{" + '\\"[[[[' + "]]" });
  deepEqual(parseBounded(text, { maxBytes: 1000, maxDepth: 1 }), { ok: true, value: JSON.parse(text) });
});

Deno.test("parseBounded() refuses numbers that overflow to Infinity and names their JSON path", () => {
  equal(
    error(parseBounded('{"score":1e999}', MANIFEST)),
    "Cannot parse JSON: the number at $.score is out of range (it would read as Infinity)",
  );
  match(error(parseBounded('{"a":[0,{"b c":[-1e400]}]}', MANIFEST)), /at \$\.a\[1\]\["b c"\]\[0\] /);
  match(error(parseBounded("1e309", MANIFEST)), /at \$ /);
  deepEqual(parseBounded('{"x":1e308,"y":-0,"z":5e-324}', MANIFEST), {
    ok: true,
    value: { x: 1e308, y: -0, z: 5e-324 },
  });
});

Deno.test("parseBounded() turns syntax errors and bad UTF-8 into messages, never exceptions", () => {
  for (const bad of ["", "{", '{"a":}', "[1,]", "NaN", "Infinity", "{'a':1}", '"\u0001"', "[1] x"]) {
    match(error(parseBounded(bad, MANIFEST)), /^Cannot parse JSON: /, bad);
  }
  match(error(parseBounded(new Uint8Array([0x22, 0xff, 0x22]), MANIFEST)), /not valid UTF-8/);
  // A snippet of the input quoted by V8 keeps no raw control characters.
  const msg = error(parseBounded("\u001b[31mx", MANIFEST));
  equal([...msg].some((c) => c.charCodeAt(0) < 0x20), false, msg);
});
