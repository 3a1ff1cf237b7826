import { deepEqual, equal, notEqual } from "node:assert/strict";
import { EMPTY_FP } from "../../model/state.ts";
import { Fingerprinter, SCAN_LIMITS } from "./fingerprint.ts";

Deno.test("Fingerprinter: a missing or empty directory is the empty fingerprint", async () => {
  const dir = await Deno.makeTempDir();
  const f = new Fingerprinter();
  equal(f.scan(`${dir}/missing`).fp, EMPTY_FP);
  equal(f.scan(dir).fp, EMPTY_FP);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("Fingerprinter: content decides, not timestamps; a same-size rewrite is seen at once", async () => {
  const dir = await Deno.makeTempDir();
  const f = new Fingerprinter();
  Deno.mkdirSync(`${dir}/sub`);
  Deno.writeTextFileSync(`${dir}/sub/a.txt`, "AAAA");
  const a = f.scan(dir).fp;
  Deno.writeTextFileSync(`${dir}/sub/a.txt`, "BBBB");
  const b = f.scan(dir).fp;
  notEqual(a, b);
  Deno.writeTextFileSync(`${dir}/sub/a.txt`, "AAAA");
  equal(f.scan(dir).fp, a, "same content, same fingerprint");
  equal(new Fingerprinter().scan(dir).fp, a, "a fresh fingerprinter agrees");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("Fingerprinter: unchanged old files are served from the cache, not read again", async () => {
  const dir = await Deno.makeTempDir();
  for (let i = 0; i < 50; i++) Deno.writeTextFileSync(`${dir}/f${i}`, `file ${i}`);
  const old = new Date(Date.now() - 60_000);
  for (let i = 0; i < 50; i++) Deno.utimeSync(`${dir}/f${i}`, old, old);
  const f = new Fingerprinter();
  f.scan(dir);
  f.scan(dir);
  const before = f.rehashed;
  const fp1 = f.scan(dir).fp;
  equal(f.rehashed, before, "nothing re-read on an unchanged tree");
  Deno.writeTextFileSync(`${dir}/f7`, "changed");
  const fp2 = f.scan(dir).fp;
  equal(f.rehashed, before + 1, "only the changed file is re-read");
  notEqual(fp1, fp2);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("Fingerprinter: paths and symlink targets are part of the fingerprint", async () => {
  const dir = await Deno.makeTempDir();
  const f = new Fingerprinter();
  Deno.writeTextFileSync(`${dir}/a`, "x");
  const a = f.scan(dir).fp;
  Deno.renameSync(`${dir}/a`, `${dir}/b`);
  notEqual(f.scan(dir).fp, a);
  Deno.symlinkSync("/etc/hostname", `${dir}/link`);
  const withLink = f.scan(dir);
  equal(withLink.files.size, 2);
  Deno.removeSync(`${dir}/link`);
  Deno.symlinkSync("/etc/passwd", `${dir}/link`);
  notEqual(f.scan(dir).fp, withLink.fp);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("Fingerprinter.scan() hands back the same table while nothing changes", async () => {
  const dir = await Deno.makeTempDir();
  for (let i = 0; i < 20; i++) Deno.writeTextFileSync(`${dir}/f${i}`, `${i}`);
  const old = new Date(Date.now() - 60_000);
  for (let i = 0; i < 20; i++) Deno.utimeSync(`${dir}/f${i}`, old, old);
  const f = new Fingerprinter();
  f.scan(dir);
  const a = f.scan(dir);
  equal(f.scan(dir).files, a.files);
  const was = a.files.get("f3");
  Deno.writeTextFileSync(`${dir}/f3`, "changed");
  const b = f.scan(dir);
  notEqual(b.files, a.files);
  equal(b.files.paths, a.files.paths, "the same paths: the sorted list is shared");
  equal(a.files.get("f3"), was, "an earlier table never changes");
  notEqual(b.files.get("f3"), a.files.get("f3"));
  await Deno.remove(dir, { recursive: true });
});

Deno.test("Fingerprinter.scan() agrees with a fresh scan through renames, type changes and odd names", async () => {
  const dir = await Deno.makeTempDir();
  const f = new Fingerprinter();
  const agree = (what: string) => {
    const p = f.scan(dir);
    const fresh = new Fingerprinter().scan(dir);
    equal(p.fp, fresh.fp, what);
    deepEqual([...p.files], [...fresh.files], what);
    deepEqual([...p.files.keys()], [...p.files.keys()].sort(), `${what}: sorted`);
  };
  for (const n of ["z", "é", "😀", "ｚ", "10", "9", "a-b"]) Deno.writeTextFileSync(`${dir}/${n}`, n);
  agree("odd names");
  Deno.mkdirSync(`${dir}/a`);
  Deno.writeTextFileSync(`${dir}/a/b`, "in a dir");
  agree("a directory added between names");
  Deno.removeSync(`${dir}/a`, { recursive: true });
  Deno.writeTextFileSync(`${dir}/a`, "now a file");
  agree("a directory became a file");
  Deno.removeSync(`${dir}/a`);
  Deno.mkdirSync(`${dir}/a`);
  Deno.symlinkSync("b", `${dir}/a/link`);
  agree("a file became a directory holding a link");
  Deno.renameSync(`${dir}/😀`, `${dir}/a/😀`);
  agree("a rename into a directory");
  let deep = dir;
  for (let i = 0; i <= SCAN_LIMITS.depth; i++) Deno.mkdirSync(deep = `${deep}/d`);
  Deno.writeTextFileSync(`${deep}/bottom`, "too deep");
  agree("a tree too deep");
  const note = [...f.scan(dir).files].find(([, v]) => v.startsWith("unreadable:"));
  equal(note?.[1], "unreadable:too deep");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("Fingerprinter: files that come and go do not grow what it holds", async () => {
  const dir = await Deno.makeTempDir();
  const f = new Fingerprinter();
  for (let round = 0; round < 5; round++) {
    for (let i = 0; i < 100; i++) Deno.writeTextFileSync(`${dir}/r${round}-${i}`, `${i}`);
    equal(f.scan(dir).files.size, 100);
    equal(f.held(dir), 100);
    for (let i = 0; i < 100; i++) Deno.removeSync(`${dir}/r${round}-${i}`);
  }
  equal(f.scan(dir).fp, EMPTY_FP);
  equal(f.held(dir), 0);
  await Deno.remove(dir, { recursive: true });
});
