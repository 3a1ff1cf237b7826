import { deepEqual, equal } from "node:assert/strict";
import { tableOf } from "./fingerprint_table.ts";
import {
  appendTick,
  diffTables,
  entryJson,
  foldScopes,
  readSnaps,
  truncateScopes,
  writeSnaps,
} from "./scope_record_fold.ts";
import { LINE_CHARS } from "./scope_record_io.ts";

const h = (i: number) => i.toString(16).padStart(64, "0");
const table = (files: Record<string, [string, number]>) =>
  tableOf(Object.entries(files).map(([p, [v, n]]) => [p, { v, n }]));

Deno.test("diffTables() names added, changed and gone paths; sizes count unless told not to", () => {
  const prev = table({ a: [h(1), 1], b: [h(2), 2], c: [h(3), 3], e: [h(5), 5] });
  const now = table({ b: [h(2), 2], c: [h(3), 9], d: [h(4), 4], e: [h(6), 5] });
  const d = diffTables(prev, now);
  deepEqual(d.changed.map((j) => now.paths[j]), ["c", "d", "e"]);
  deepEqual(d.removed.map((i) => prev.paths[i]), ["a"]);
  deepEqual(diffTables(prev, now, false).changed.map((j) => now.paths[j]), ["d", "e"]);
  deepEqual(diffTables(now, now), { changed: [], removed: [] });
});

Deno.test("appendTick() writes a small tick as JSON.stringify would, object key order included", async () => {
  const dir = await Deno.makeTempDir();
  const t = table({ b: [h(1), 1], "10": [h(2), 2], "9": [h(3), 3] });
  const prev = table({ gone: [h(4), 4] });
  appendTick(`${dir}/s.jsonl`, 3, [
    { node: "N", size: t.size, key: (j) => t.paths[j]!, json: (j) => entryJson(t, j) },
    { node: "7", size: 1, key: () => prev.paths[0]!, json: () => "null" },
  ]);
  appendTick(`${dir}/s.jsonl`, 4, []);
  const want = {
    tick: 3,
    changes: {
      N: { b: [h(1), 1], "10": [h(2), 2], "9": [h(3), 3] },
      "7": { gone: null },
    },
  };
  equal(
    Deno.readTextFileSync(`${dir}/s.jsonl`),
    JSON.stringify(want) + "\n" + JSON.stringify({ tick: 4, changes: {} }) + "\n",
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("appendTick() splits a huge tick into bounded lines that foldScopes() puts back together", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/s.jsonl`;
  const files: Record<string, [string, number]> = {};
  for (let i = 0; i < 5_000; i++) files[`dir/file-${i}`.padEnd(200, "-")] = [h(i), i];
  const big = table(files);
  const all = (t: typeof big) => ({
    size: t.size,
    key: (j: number) => t.paths[j]!,
    json: (j: number) => entryJson(t, j),
  });
  appendTick(path, 0, [{ node: "A", ...all(big) }, { node: "B", size: 0, key: () => "", json: () => "" }]);
  const seven = "dir/file-7".padEnd(200, "-");
  appendTick(path, 1, [{ node: "A", size: 1, key: () => seven, json: () => "null" }]);
  const lines = Deno.readTextFileSync(path).trimEnd().split("\n");
  equal(lines.length > 2, true, "tick 0 spans several lines");
  for (const l of lines) equal(l.length <= LINE_CHARS + 200, true);
  const at0 = foldScopes(path, 0)!;
  deepEqual([...at0.get("A")!.paths], [...big.paths]);
  equal(at0.get("A")!.rec("dir/file-4999".padEnd(200, "-"))?.n, 4999);
  equal(at0.get("B")!.size, 0);
  const at1 = foldScopes(path, 1)!;
  equal(at1.get("A")!.size, 4_999);
  equal(at1.get("A")!.has(seven), false);
  equal(foldScopes(`${dir}/missing.jsonl`, 1), null);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("truncateScopes() keeps whole lines up to a tick and drops torn and later ones", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/s.jsonl`;
  const line = (tick: number) => JSON.stringify({ tick, changes: { A: { [`f${tick}`]: [h(tick), 1] } } });
  Deno.writeTextFileSync(
    path,
    `${line(0)}\n${line(1)}\n{"tick":1,"chan\n${line(2)}\n${line(3).slice(0, 20)}`,
  );
  truncateScopes(path, 2);
  equal(Deno.readTextFileSync(path), `${line(0)}\n${line(1)}\n${line(2)}\n`);
  truncateScopes(path, 0);
  equal(Deno.readTextFileSync(path), `${line(0)}\n`);
  deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["s.jsonl"], "no temp file left");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("writeSnaps() round-trips through readSnaps(); a legacy one-object snaps.json still reads", async () => {
  const dir = await Deno.makeTempDir();
  const files: Record<string, [string, number]> = {};
  for (let i = 0; i < 5_000; i++) files[`f${i}`.padEnd(200, ".")] = [h(i), i];
  const a = table(files);
  const b = table({ "0": ["special:fifo", 0], x: ["link:" + h(1), 0] });
  writeSnaps(`${dir}/snaps.json`, new Map([["A", a], ["B", b]]));
  const back = readSnaps(`${dir}/snaps.json`);
  deepEqual([...back.keys()].sort(), ["A", "B"]);
  deepEqual([...back.get("A")!.paths], [...a.paths]);
  deepEqual([...back.get("A")!.sizes], [...a.sizes]);
  deepEqual([...back.get("B")!.vals], [...b.vals]);
  Deno.writeTextFileSync(`${dir}/old.json`, JSON.stringify({ C: { y: { v: h(2), n: 4 }, bad: { v: 1 } } }));
  const old = readSnaps(`${dir}/old.json`);
  deepEqual([...old.get("C")!.paths], ["y"], "a malformed entry is skipped");
  equal(old.get("C")!.rec("y")?.n, 4);
  equal(readSnaps(`${dir}/missing.json`).size, 0);
  await Deno.remove(dir, { recursive: true });
});
