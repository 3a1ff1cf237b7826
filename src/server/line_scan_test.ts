import { deepEqual, equal } from "node:assert/strict";
import { LineScan } from "./line_scan.ts";

function scan(text: string, pieces = 1): ReturnType<LineScan["finish"]> {
  const bytes = new TextEncoder().encode(text);
  const s = new LineScan();
  const step = Math.max(1, Math.ceil(bytes.length / pieces));
  for (let i = 0; i < bytes.length; i += step) s.push(bytes.subarray(i, i + step));
  return s.finish();
}

Deno.test("LineScan reads the top-level tick and the verdict event, fed whole or byte by byte", () => {
  const final = JSON.stringify({
    events: [{ e: "status", from: "running", node: "N4", to: "verified" }, {
      detail: { a: 1 },
      e: "verdict",
    }],
    prev: "ab12",
    tick: 41,
  });
  for (const pieces of [1, 3, final.length]) {
    deepEqual(scan(final, pieces), { tick: 41, final: true }, `${pieces} pieces`);
  }
  deepEqual(scan('{"events":[],"tick":0}'), { tick: 0, final: false });
  deepEqual(scan(' { "tick" : 7 , "events" : [ ] } '), { tick: 7, final: false });
});

Deno.test("LineScan is not fooled by a verdict or tick that a worker put deeper in the line", () => {
  const forged = JSON.stringify({
    events: [
      { e: "note", node: "N4", set: { manifest: { e: "verdict", tick: 999 } } },
      { e: "incident", incident: { evidence: { events: [{ e: "verdict" }] } } },
    ],
    other: [{ e: "verdict" }],
    tick: 5,
  });
  deepEqual(scan(forged), { tick: 5, final: false });
  deepEqual(scan(JSON.stringify({ events: [{ e: "x", s: '"e":"verdict"' }], tick: 6 })), {
    tick: 6,
    final: false,
  });
  deepEqual(scan(JSON.stringify({ events: [{ e: "verd\\u0069ct" }], tick: 8 })), { tick: 8, final: false });
});

Deno.test("LineScan refuses what is not one complete object with a whole tick", () => {
  for (
    const bad of [
      "",
      "{}",
      "[1]",
      '{"tick":1.5,"events":[]}',
      '{"tick":-1e3}',
      '{"tick":1,"events":[}',
      '{"tick":1}{"tick":2}',
      '{"tick":1,"s":"open',
      "x",
      '{"tick":99999999999999999}',
    ]
  ) {
    equal(scan(bad), null, bad);
  }
});
