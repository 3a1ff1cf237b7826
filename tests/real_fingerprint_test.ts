/**
 * The faster fingerprints keep their meaning: a scan that reuses its sorted paths, digest blocks and cached
 * path strings gives exactly what a fresh fingerprinter (or `fingerprintOf`) gives, through edits, additions,
 * removals and trees that share directories.
 */
import { deepEqual, equal, notEqual } from "node:assert/strict";
import { Fingerprinter, fingerprintOf } from "../src/runtime/scope/fingerprint.ts";

Deno.test("Fingerprinter: reused digest blocks agree with a fresh scan through edits, additions, removals", async () => {
  const dir = await Deno.makeTempDir({ prefix: "arrow-fp-" });
  try {
    for (let i = 0; i < 700; i++) {
      Deno.mkdirSync(`${dir}/d${i % 7}`, { recursive: true });
      Deno.writeTextFileSync(`${dir}/d${i % 7}/f${i}`, `file ${i}`);
    }
    const f = new Fingerprinter();
    const seen = new Set<string>();
    const steps: [string, () => void][] = [
      ["edit", () => Deno.writeTextFileSync(`${dir}/d3/f3`, "changed")],
      ["edit far apart", () => {
        Deno.writeTextFileSync(`${dir}/d0/f0`, "x");
        Deno.writeTextFileSync(`${dir}/d6/f699`, "y");
      }],
      ["add", () => Deno.writeTextFileSync(`${dir}/d2/new`, "new")],
      ["remove", () => Deno.removeSync(`${dir}/d5/f5`)],
      ["rename", () => Deno.renameSync(`${dir}/d1/f1`, `${dir}/d1/g1`)],
      ["nothing", () => {}],
    ];
    for (const [what, change] of steps) {
      f.scan(dir);
      change();
      const print = f.scan(dir);
      equal(print.fp, new Fingerprinter().scan(dir).fp, what);
      equal(print.fp, fingerprintOf(print.files), what);
      seen.add(print.fp);
    }
    equal(seen.size, steps.length - 1, "every change moved the fingerprint");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Fingerprinter: a directory scanned within two trees keeps each tree's relative paths", async () => {
  const dir = await Deno.makeTempDir({ prefix: "arrow-fp-" });
  try {
    Deno.mkdirSync(`${dir}/sub`);
    Deno.writeTextFileSync(`${dir}/sub/a`, "a");
    const f = new Fingerprinter();
    deepEqual([...f.scan(dir).files.keys()], ["sub/a"]);
    deepEqual([...f.scan(`${dir}/sub`).files.keys()], ["a"]);
    deepEqual([...f.scan(dir).files.keys()], ["sub/a"]);
    notEqual(f.scan(dir).fp, f.scan(`${dir}/sub`).fp);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
