import { deepEqual, equal } from "node:assert/strict";
import { JsonlTail, metricPoints } from "./tail.ts";

Deno.test("JsonlTail hands back complete lines only, skips and counts malformed ones", async () => {
  const dir = await Deno.makeTempDir();
  const p = `${dir}/m.jsonl`;
  const t = new JsonlTail(p);
  deepEqual(t.read(), [], "missing file");
  Deno.writeTextFileSync(p, '{"step":1,"m":0.5}\nnot json\n{"step":2,');
  deepEqual(t.read(), [{ step: 1, m: 0.5 }]);
  equal(t.malformed, 1);
  Deno.writeTextFileSync(p, '"m":0.6}\n[1,2]\n', { append: true });
  deepEqual(t.read(), [{ step: 2, m: 0.6 }], "the half line waited for its end");
  equal(t.malformed, 2, "a JSON array is not a metrics object");
  deepEqual(t.read(), []);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("JsonlTail starts over when the file shrinks, and can skip what is already known", async () => {
  const dir = await Deno.makeTempDir();
  const p = `${dir}/m.jsonl`;
  Deno.writeTextFileSync(p, '{"step":1}\n{"step":2}\n');
  const t = new JsonlTail(p);
  equal(t.read().length, 2);
  Deno.writeTextFileSync(p, '{"step":9}\n');
  deepEqual(t.read(), [{ step: 9 }]);
  const u = new JsonlTail(p);
  u.skipToEnd();
  deepEqual(u.read(), []);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("metricPoints() keeps lines with a numeric step and metric, counts the rest", () => {
  const r = metricPoints([
    { step: 1, dev: 0.5 },
    { step: "2", dev: 0.6 },
    { step: 3 },
    { step: 4, dev: NaN },
    { step: 5, dev: 0.7 },
  ], "dev");
  deepEqual(r.points, [{ step: 1, value: 0.5 }, { step: 5, value: 0.7 }]);
  equal(r.skipped, 3);
});
