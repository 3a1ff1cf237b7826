import { deepEqual, equal, throws } from "node:assert/strict";
import { appendDurable, writeAtomic } from "./atomic.ts";
import { inside, resolvePath } from "./audit.ts";
import { BlobStore } from "./blobs.ts";
import { Fingerprinter } from "./fingerprint.ts";
import { acquireLock, LockedError } from "./lock.ts";

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
  for (const [rel, hash] of before.files) store.put(`${scope}/${rel}`, hash);
  Deno.writeTextFileSync(`${scope}/a.txt`, "tampered");
  Deno.writeTextFileSync(`${scope}/leaked.txt`, "x");
  Deno.removeSync(`${scope}/ckpt/1.json`);
  const now = Object.fromEntries(fp.scan(scope).files);
  const r = store.restore(scope, Object.fromEntries(before.files), now);
  deepEqual(r.changed, ["a.txt", "ckpt/1.json", "leaked.txt"]);
  deepEqual(r.lost, []);
  equal(fp.scan(scope).fp, before.fp);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("acquireLock(): one holder at a time; a dead holder's lock is taken over", async () => {
  const dir = await Deno.makeTempDir();
  const lock = acquireLock(dir);
  equal(lock.tookOverFrom, null);
  const sleeper = new Deno.Command("sleep", { args: ["30"] }).spawn();
  Deno.writeTextFileSync(`${dir}/.arrow/lock`, JSON.stringify({ pid: sleeper.pid, start: null }));
  throws(() => acquireLock(dir), LockedError);
  sleeper.kill("SIGKILL");
  await sleeper.status;
  const taken = acquireLock(dir);
  equal(taken.tookOverFrom, sleeper.pid);
  taken.release();
  lock.release();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("resolvePath() and inside() judge audit paths without touching the disk", () => {
  equal(resolvePath("/run/nodes/N4", "../N3/x.txt"), "/run/nodes/N3/x.txt");
  equal(resolvePath("/run/nodes/N4", "./ckpt/../m.jsonl"), "/run/nodes/N4/m.jsonl");
  equal(inside("/run/nodes/N4/m.jsonl", "/run/nodes/N4"), true);
  equal(inside("/run/nodes/N40/m.jsonl", "/run/nodes/N4"), false);
});
