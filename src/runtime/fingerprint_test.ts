import { equal, notEqual } from "node:assert/strict";
import { EMPTY_FP } from "../model/state.ts";
import { Fingerprinter } from "./fingerprint.ts";

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
