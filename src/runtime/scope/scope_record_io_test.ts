import { deepEqual, equal } from "node:assert/strict";
import { ChunkWriter, GroupLines, objectOrder, readLines } from "./scope_record_io.ts";

Deno.test("readLines() gives back long lines and characters cut across its 1 MiB reads", async () => {
  const dir = await Deno.makeTempDir();
  const long = "é😀x".repeat(400_000);
  const lines = ["first", long, "", "last without newline"];
  Deno.writeTextFileSync(`${dir}/f`, lines.join("\n"));
  deepEqual([...readLines(`${dir}/f`)], lines);
  deepEqual([...readLines(`${dir}/missing`)], []);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("ChunkWriter.replace() leaves the old content until close(), and all of it after abort()", async () => {
  const dir = await Deno.makeTempDir();
  Deno.writeTextFileSync(`${dir}/f`, "old\n");
  const w = ChunkWriter.replace(`${dir}/f`);
  w.write("x".repeat(3 << 20));
  equal(Deno.readTextFileSync(`${dir}/f`), "old\n");
  w.abort();
  equal(Deno.readTextFileSync(`${dir}/f`), "old\n");
  deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["f"]);
  const v = ChunkWriter.replace(`${dir}/f`);
  v.write("new\n");
  v.close(true);
  equal(Deno.readTextFileSync(`${dir}/f`), "new\n");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("GroupLines writes what JSON.stringify writes for a small object", async () => {
  const dir = await Deno.makeTempDir();
  const w = ChunkWriter.append(`${dir}/f`);
  const g = new GroupLines(w, `"tick":5`, "changes");
  const obj = { tick: 5, changes: { "2": { 'b\n"': [1, "x"] }, a: {}, "é": { "1": null, z: null } } };
  for (const [node, diff] of Object.entries(obj.changes)) {
    g.group(node);
    for (const [k, v] of Object.entries(diff)) g.entry(k, JSON.stringify(v));
  }
  g.end();
  w.close(false);
  equal(Deno.readTextFileSync(`${dir}/f`), JSON.stringify(obj) + "\n");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("objectOrder() lists array-index keys first, ascending, as a plain object does", () => {
  const keys = ["b", "10", "9", "a", "01", "4294967295", "4294967294", "0"];
  const obj: Record<string, true> = {};
  for (const k of keys) obj[k] = true;
  deepEqual(objectOrder(keys, (k) => k), Object.keys(obj));
});
