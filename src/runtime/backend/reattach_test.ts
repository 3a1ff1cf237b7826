import { equal } from "node:assert/strict";
import { metricsResumeOffset } from "./reattach.ts";

const lines = (rows: unknown[]) => rows.map((r) => JSON.stringify(r) + "\n").join("");

Deno.test("metricsResumeOffset() continues after the last point the state recorded in this attempt", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/metrics.jsonl`;
    // An earlier attempt wrote steps 0..3; this one resumed from step 1 and wrote 2, 3 (same values) and 4.
    const earlier = lines([0, 1, 2, 3].map((s) => ({ step: s, r2: s / 10 })));
    const now = lines([{ step: 2, r2: 0.2 }, "not json", { step: 3, r2: 0.3 }, { step: 4, r2: 0.4 }]);
    Deno.writeTextFileSync(path, earlier + now.replace('"not json"', "{oops"));
    const from = new TextEncoder().encode(earlier).length;
    const text = Deno.readTextFileSync(path);
    const after3 = new TextEncoder().encode(text.slice(0, text.indexOf('{"step":4'))).length;
    equal(metricsResumeOffset(path, from, false, { step: 3, value: 0.3 }, "r2"), after3);
    // Nothing recorded yet in this attempt: from its first byte, not from the earlier attempt's lines.
    equal(metricsResumeOffset(path, from, false, null, "r2"), from);
    // The offset was not journalled: a fresh attempt's file holds only its own lines; a resumed one's end.
    equal(metricsResumeOffset(path, null, true, null, "r2"), 0);
    const size = Deno.statSync(path).size;
    equal(metricsResumeOffset(path, null, false, null, "r2"), size);
    // A point the file never had (the state is ahead of the file): nothing is read twice.
    equal(metricsResumeOffset(path, from, false, { step: 9, value: 0.9 }, "r2"), size);
    equal(metricsResumeOffset(`${dir}/missing.jsonl`, 0, true, { step: 1, value: 1 }, "r2"), 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
