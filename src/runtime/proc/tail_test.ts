import { deepEqual, equal, ok } from "node:assert/strict";
import { JsonlTail, MAX_POINTS, metricPoints, thinPoints } from "./tail.ts";

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

Deno.test("thinPoints() keeps the first, the last and the best of a flood, in order, at most max", () => {
  const points = Array.from({ length: 10_000 }, (_, i) => ({ step: i + 1, value: i === 4321 ? 9 : i / 1e4 }));
  const kept = thinPoints(points, MAX_POINTS, "maximize");
  equal(kept.length, MAX_POINTS);
  equal(kept[0]!.step, 1);
  equal(kept.at(-1)!.step, 10_000);
  ok(kept.some((p) => p.step === 4322 && p.value === 9), "the best survives");
  ok(kept.every((p, i) => i === 0 || p.step > kept[i - 1]!.step), "in step order, no duplicates");
  const low = thinPoints(points.map((p) => ({ ...p, value: -p.value })), 10, "minimize");
  equal(low.length, 10);
  ok(low.some((p) => p.value === -9), "minimize keeps the lowest");
  equal(thinPoints(points.slice(0, 5), 10, "maximize").length, 5, "a short list is left whole");
});
