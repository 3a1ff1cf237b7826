import { deepEqual, equal, notEqual } from "node:assert/strict";
import {
  copyLane,
  RACY_MS,
  type Shadow,
  shadowWrites,
  sigAt,
  sigMatches,
  signature,
  syncLane,
} from "./lanes.ts";

/** Puts a file's modification time back to `at` (what one clock tick looks like: two writes, one time). */
function backTo(path: string, at: Date): void {
  Deno.utimeSync(path, at, at);
}

Deno.test("signature: a same-size rewrite within one clock tick of the look is still a change", () => {
  const dir = Deno.makeTempDirSync({ prefix: "arrow-lanes-" });
  const p = `${dir}/a.txt`;
  Deno.writeTextFileSync(p, "X = 1\n");
  const was = signature(Deno.lstatSync(p), p);
  const at = Deno.lstatSync(p).mtime!;
  equal(sigMatches(was, p), true, "untouched: the same");
  Deno.writeTextFileSync(p, "X = 2\n");
  backTo(p, at);
  equal(Deno.lstatSync(p).mtime!.getTime(), at.getTime(), "size and modification time alike");
  equal(sigMatches(was, p), false, "the content tells them apart");
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("signature: an old file is size and times alone; a write that puts its time back is a change", () => {
  const dir = Deno.makeTempDirSync({ prefix: "arrow-lanes-" });
  const p = `${dir}/a.txt`;
  Deno.writeTextFileSync(p, "X = 1\n");
  const old = new Date(Date.now() - 10 * RACY_MS);
  backTo(p, old);
  // The change time is the write's own (now), so the look still hashes; once it is old too, no hash.
  const was = signature(Deno.lstatSync(p), p);
  equal(sigMatches(was, p), true);
  Deno.writeTextFileSync(p, "X = 2\n");
  backTo(p, old);
  equal(sigMatches(was, p), false);
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("copyLane keeps the source's times, and a program's same-size rewrite of a copy is a write", () => {
  const dir = Deno.makeTempDirSync({ prefix: "arrow-lanes-" });
  Deno.mkdirSync(`${dir}/src/sub`, { recursive: true });
  Deno.writeTextFileSync(`${dir}/src/sub/h.py`, "print(0.5)\n");
  Deno.writeTextFileSync(`${dir}/src/k.txt`, "k\n");
  const old = new Date(Date.now() - 10 * RACY_MS);
  backTo(`${dir}/src/sub/h.py`, old);
  const baseline = copyLane(`${dir}/src`, `${dir}/copy`, ["sub/h.py", "k.txt"]);
  equal(Deno.lstatSync(`${dir}/copy/sub/h.py`).mtime!.getTime(), old.getTime());
  const shadow = { dir: `${dir}/copy`, shows: `${dir}/src`, ignore: [], baseline };
  equal(shadowWrites(shadow).length, 0, "nothing written: nothing seen");
  Deno.writeTextFileSync(`${dir}/copy/k.txt`, "j\n");
  const kAt = Deno.lstatSync(`${dir}/src/k.txt`).mtime!;
  backTo(`${dir}/copy/k.txt`, kAt);
  notEqual(Deno.readTextFileSync(`${dir}/copy/k.txt`), "k\n");
  Deno.writeTextFileSync(`${dir}/copy/sub/h.py`, "print(0.9)\n");
  Deno.removeSync(`${dir}/copy/k.txt`);
  Deno.writeTextFileSync(`${dir}/copy/k.txt`, "j\n");
  equal(
    JSON.stringify(shadowWrites(shadow)),
    JSON.stringify([{ rel: "k.txt", op: "write" }, { rel: "sub/h.py", op: "write" }]),
  );
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("shadowWrites keeps a copy recorded with its hash as size and times once it is old, and still sees a write", () => {
  const dir = Deno.makeTempDirSync({ prefix: "arrow-lanes-" });
  Deno.mkdirSync(`${dir}/src`);
  Deno.writeTextFileSync(`${dir}/src/k.txt`, "k\n");
  // Copied while recent: the baseline holds the content's hash.
  const baseline = copyLane(`${dir}/src`, `${dir}/copy`, ["k.txt"]);
  equal(baseline["k.txt"]!.includes("#"), true);
  const shadow = { dir: `${dir}/copy`, shows: `${dir}/src`, ignore: [], baseline };
  equal(shadowWrites(shadow).length, 0);
  equal(baseline["k.txt"]!.includes("#"), true, "still recent: still hashed");
  const later = Date.now() + 10 * RACY_MS;
  equal(shadowWrites(shadow, later).length, 0);
  equal(baseline["k.txt"]!.includes("#"), false, "old: size and times alone");
  Deno.writeTextFileSync(`${dir}/copy/k.txt`, "j\n");
  equal(JSON.stringify(shadowWrites(shadow, later)), JSON.stringify([{ rel: "k.txt", op: "write" }]));
  Deno.removeSync(dir, { recursive: true });
});

/** A kept-in-step copy of `src` (a stream source's), as layout.ts makes one. */
function keptInStep(src: string, dir: string, files: string[]): Shadow {
  const baseline = copyLane(src, dir, files);
  const synced = Object.fromEntries(files.map((f) => [f, sigAt(`${src}/${f}`)!]));
  return { dir, shows: "nodes/src", ignore: [], baseline, source: src, synced };
}

Deno.test("syncLane never overwrites or removes a program's write that no look has named yet", () => {
  const root = Deno.makeTempDirSync({ prefix: "arrow-lanes-" });
  const src = `${root}/src`;
  Deno.mkdirSync(`${src}/ckpt`, { recursive: true });
  Deno.writeTextFileSync(`${src}/ckpt/step_1.json`, '{"step": 1}');
  Deno.writeTextFileSync(`${src}/old.txt`, "old");
  const lane = keptInStep(src, `${root}/copy`, ["ckpt/step_1.json", "old.txt"]);
  deepEqual(shadowWrites(lane), []);
  // Between the look and the sync: the program forges a checkpoint, adds a file, edits one its owner then
  // removes; the owner writes a new checkpoint.
  Deno.writeTextFileSync(`${lane.dir}/ckpt/step_1.json`, '{"step": 1, "forged": true}');
  Deno.writeTextFileSync(`${lane.dir}/evil.txt`, "x");
  Deno.writeTextFileSync(`${lane.dir}/old.txt`, "edited");
  Deno.removeSync(`${src}/old.txt`);
  Deno.writeTextFileSync(`${src}/ckpt/step_2.json`, '{"step": 2}');
  syncLane(lane);
  equal(Deno.readTextFileSync(`${lane.dir}/ckpt/step_2.json`), '{"step": 2}', "the owner's new file is in");
  equal(
    Deno.readTextFileSync(`${lane.dir}/ckpt/step_1.json`),
    '{"step": 1, "forged": true}',
    "not overwritten",
  );
  // The next look names all three; the sync after it puts the source's state back.
  deepEqual(shadowWrites(lane), [
    { rel: "ckpt/step_1.json", op: "write" },
    { rel: "evil.txt", op: "write" },
    { rel: "old.txt", op: "write" },
  ]);
  syncLane(lane);
  equal(Deno.readTextFileSync(`${lane.dir}/ckpt/step_1.json`), '{"step": 1}');
  deepEqual([...Deno.readDirSync(lane.dir)].map((e) => e.name).sort(), ["ckpt"]);
  deepEqual(shadowWrites(lane), [], "in step again: nothing to name");
  // A deletion between look and sync is named too, then the copy is restored.
  Deno.removeSync(`${lane.dir}/ckpt/step_2.json`);
  syncLane(lane);
  deepEqual(shadowWrites(lane), [{ rel: "ckpt/step_2.json", op: "delete" }]);
  syncLane(lane);
  equal(Deno.readTextFileSync(`${lane.dir}/ckpt/step_2.json`), '{"step": 2}');
  deepEqual(shadowWrites(lane), []);
  Deno.removeSync(root, { recursive: true });
});
