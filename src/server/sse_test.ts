import { equal } from "node:assert/strict";
import { bigFrame, frame, resumeAfter } from "./sse.ts";

Deno.test("resumeAfter() prefers Last-Event-ID, then ?after=, else the start", () => {
  equal(resumeAfter("7", "3"), 7);
  equal(resumeAfter(undefined, "3"), 3);
  equal(resumeAfter("junk", "3"), 3);
  equal(resumeAfter(undefined, undefined), -1);
  equal(resumeAfter("1e9", "x"), -1);
});

Deno.test("frame() makes one SSE event whose id is the tick; bigFrame() announces a line to fetch", () => {
  equal(frame(4, '{"events":[],"tick":4}'), 'id: 4\nevent: tick\ndata: {"events":[],"tick":4}\n\n');
  equal(
    bigFrame({ tick: 9, final: false, offset: 0, bytes: 5_000_000, big: true }),
    'id: 9\nevent: big\ndata: {"bytes":5000000,"tick":9}\n\n',
  );
});
