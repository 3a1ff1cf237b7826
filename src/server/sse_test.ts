import { equal } from "node:assert/strict";
import { bigFrame, resumeAfter } from "./sse.ts";

Deno.test("resumeAfter() prefers Last-Event-ID, then ?after=, else the start", () => {
  equal(resumeAfter("7", "3"), 7);
  equal(resumeAfter(undefined, "3"), 3);
  equal(resumeAfter("junk", "3"), 3);
  equal(resumeAfter(undefined, undefined), -1);
  equal(resumeAfter("1e9", "x"), -1);
});

Deno.test("bigFrame() announces a line too large for the live feed, with its tick and size", () => {
  equal(
    bigFrame({ tick: 9, final: false, offset: 0, bytes: 5_000_000, big: true }),
    'id: 9\nevent: big\ndata: {"bytes":5000000,"tick":9}\n\n',
  );
});
