import { equal } from "node:assert/strict";
import { frame, resumeAfter } from "./sse.ts";

Deno.test("resumeAfter() prefers Last-Event-ID, then ?after=, else the start", () => {
  equal(resumeAfter("7", "3"), 7);
  equal(resumeAfter(undefined, "3"), 3);
  equal(resumeAfter("junk", "3"), 3);
  equal(resumeAfter(undefined, undefined), -1);
  equal(resumeAfter("1e9", "x"), -1);
});

Deno.test("frame() makes one SSE event whose id is the tick", () => {
  equal(
    frame({ tick: 4, text: '{"events":[],"tick":4}', final: false }),
    'id: 4\nevent: tick\ndata: {"events":[],"tick":4}\n\n',
  );
});
