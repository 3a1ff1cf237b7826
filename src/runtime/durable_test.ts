import { deepEqual, equal } from "node:assert/strict";
import { appendDurable, writeAtomic } from "./atomic.ts";
import { inside, resolvePath } from "./sandbox/audit.ts";
import { BlobStore } from "./scope/blobs.ts";
import { Fingerprinter } from "./scope/fingerprint.ts";

Deno.test("writeAtomic() replaces the whole file and leaves no temp file", async () => {
  const dir = await Deno.makeTempDir();
  writeAtomic(`${dir}/s.json`, "one");
  writeAtomic(`${dir}/s.json`, "two", false);
  equal(Deno.readTextFileSync(`${dir}/s.json`), "two");
  deepEqual([...Deno.readDirSync(dir)].map((d) => d.name), ["s.json"]);
  appendDurable(`${dir}/a.jsonl`, "x\n");
  appendDurable(`${dir}/a.jsonl`, "y\n", false);
  equal(Deno.readTextFileSync(`${dir}/a.jsonl`), "x\ny\n");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("BlobStore restores a scope exactly: extra files removed, changed ones put back", async () => {
  const dir = await Deno.makeTempDir();
  const scope = `${dir}/scope`;
  Deno.mkdirSync(`${scope}/ckpt`, { recursive: true });
  Deno.writeTextFileSync(`${scope}/a.txt`, "alpha");
  Deno.writeTextFileSync(`${scope}/ckpt/1.json`, "{}");
  const fp = new Fingerprinter();
  const store = new BlobStore(`${dir}/blobs`);
  const before = fp.scan(scope);
  for (const [rel, hash] of before.files) {
    equal(store.put(`${scope}/${rel}`, hash, before.sizes.get(rel)!), true);
  }
  Deno.writeTextFileSync(`${scope}/a.txt`, "tampered");
  Deno.writeTextFileSync(`${scope}/leaked.txt`, "x");
  Deno.removeSync(`${scope}/ckpt/1.json`);
  for (const rel of ["a.txt", "ckpt/1.json"]) {
    equal(
      store.restoreOne(`${scope}/${rel}`, { v: before.files.get(rel)!, n: before.sizes.get(rel)! }),
      true,
    );
  }
  Deno.removeSync(`${scope}/leaked.txt`);
  equal(fp.scan(scope).fp, before.fp);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("resolvePath() and inside() judge audit paths without touching the disk", () => {
  equal(resolvePath("/run/nodes/N4", "../N3/x.txt"), "/run/nodes/N3/x.txt");
  equal(resolvePath("/run/nodes/N4", "./ckpt/../m.jsonl"), "/run/nodes/N4/m.jsonl");
  equal(inside("/run/nodes/N4/m.jsonl", "/run/nodes/N4"), true);
  equal(inside("/run/nodes/N40/m.jsonl", "/run/nodes/N4"), false);
});
