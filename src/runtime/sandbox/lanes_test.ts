import { equal, notEqual } from "node:assert/strict";
import { copyLane, RACY_MS, shadowWrites, sigMatches, signature } from "./lanes.ts";

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
