/**
 * Benchmark of scope fingerprints against their physical anchors, on a temporary tree of 20,000 files
 * (~2 GiB; deleted afterwards):
 *
 * - per tick (one small file changed, then a scan): cost / a bare `Deno.readDirSync` + `Deno.lstatSync`
 *   walk of the same tree — anchor ≤ 1.3×;
 * - cold full hash (a new Fingerprinter): throughput / `openssl dgst -sha256` over the same files — anchor
 *   ≥ 0.8×.
 *
 * Usage: deno run -A scripts/bench_fingerprint.ts [--files 20000] [--gib 2] [--ticks 15] [--dir /tmp]
 * Exits 1 when an anchor is missed.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { Fingerprinter } from "../src/runtime/scope/fingerprint.ts";

const { values: o } = parseArgs({
  args: Deno.args,
  options: {
    files: { type: "string", default: "20000" },
    gib: { type: "string", default: "2" },
    ticks: { type: "string", default: "15" },
    dir: { type: "string", default: "/tmp" },
  },
});
const FILES = Number(o.files);
const BYTES = Number(o.gib) * 2 ** 30;
const TICKS = Number(o.ticks);
const MiB = 2 ** 20;

function freeBytes(dir: string): number {
  const out = new Deno.Command("df", { args: ["-B1", "--output=avail", dir], stdout: "piped" }).outputSync();
  return Number(new TextDecoder().decode(out.stdout).trim().split("\n").pop());
}

/** 20 big files (half the bytes, streamed in 4 MiB chunks) and many small ones, 100 to a directory. */
function makeTree(root: string): { paths: string[]; bytes: number } {
  const big = 20;
  const bigSize = Math.floor(BYTES / 2 / big);
  const smallSize = Math.floor(BYTES / 2 / (FILES - big));
  const noise = crypto.getRandomValues(new Uint8Array(64 * 1024));
  const block = new Uint8Array(Math.max(bigSize, smallSize));
  for (let off = 0; off < block.length; off += noise.length) {
    block.set(noise.subarray(0, block.length - off), off);
  }
  const paths: string[] = [];
  let bytes = 0;
  for (let i = 0; i < FILES; i++) {
    const dir = `${root}/d${String(Math.floor(i / 100)).padStart(3, "0")}`;
    if (i % 100 === 0) Deno.mkdirSync(dir, { recursive: true });
    const size = i < big ? bigSize : smallSize;
    const data = block.subarray(0, size);
    new DataView(data.buffer).setUint32(0, i);
    const p = `${dir}/f${i}.bin`;
    Deno.writeFileSync(p, data);
    paths.push(p);
    bytes += size;
  }
  return { paths, bytes };
}

function bareWalk(dir: string): number {
  let n = 0;
  for (const d of Deno.readDirSync(dir)) {
    const p = `${dir}/${d.name}`;
    if (d.isDirectory) n += bareWalk(p);
    else {
      Deno.lstatSync(p);
      n++;
    }
  }
  return n;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
function time(f: () => unknown): number {
  const t0 = performance.now();
  f();
  return performance.now() - t0;
}

function openssl(paths: string[]): number {
  const t0 = performance.now();
  for (let i = 0; i < paths.length; i += 2000) {
    const out = new Deno.Command("openssl", {
      args: ["dgst", "-sha256", ...paths.slice(i, i + 2000)],
      stdout: "null",
    })
      .outputSync();
    if (!out.success) throw new Error("openssl dgst failed");
  }
  return performance.now() - t0;
}

const need = BYTES * 1.5 + 512 * MiB;
if (freeBytes(o.dir!) < need) {
  console.error(`bench_fingerprint: needs ${(need / 2 ** 30).toFixed(1)} GiB free in ${o.dir}; not enough`);
  Deno.exit(1);
}
const root = Deno.makeTempDirSync({ dir: o.dir, prefix: "arrow-fp-bench-" });
try {
  const t0 = performance.now();
  const { paths, bytes } = makeTree(root);
  console.log(
    `tree: ${paths.length} files, ${(bytes / 2 ** 30).toFixed(2)} GiB in ${root} (${
      ((performance.now() - t0) / 1000).toFixed(1)
    } s to write)`,
  );

  // Cold full hash: best of two rounds each, page cache warm for both (the files were just written).
  const sslMs = Math.min(openssl(paths), openssl(paths));
  const coldMs = Math.min(
    time(() => new Fingerprinter().scan(root)),
    time(() => new Fingerprinter().scan(root)),
  );
  const sslRate = bytes / MiB / (sslMs / 1000);
  const coldRate = bytes / MiB / (coldMs / 1000);
  console.log(
    `cold full hash: ${coldRate.toFixed(0)} MiB/s (${coldMs.toFixed(0)} ms); openssl dgst -sha256: ${
      sslRate.toFixed(0)
    } MiB/s (${sslMs.toFixed(0)} ms); ratio ${(coldRate / sslRate).toFixed(2)} (anchor ≥ 0.80)`,
  );

  // Per tick: one small file changes, then a scan; against a bare walk of the same tree.
  const fp = new Fingerprinter();
  fp.scan(root);
  fp.scan(root);
  const walks: number[] = [];
  const ticks: number[] = [];
  const rehashed: number[] = [];
  for (let k = 0; k < TICKS; k++) {
    walks.push(time(() => bareWalk(root)));
    Deno.writeTextFileSync(paths[FILES - 1 - k]!, `tick ${k}\n`);
    const before = fp.rehashed;
    ticks.push(time(() => fp.scan(root)));
    rehashed.push(fp.rehashed - before);
  }
  const walk = median(walks);
  const tick = median(ticks);
  console.log(
    `bare readDirSync + lstatSync walk: ${walk.toFixed(1)} ms (${(FILES / walk).toFixed(0)}k files/s)`,
  );
  console.log(
    `per-tick scan (1 file changed): ${tick.toFixed(1)} ms, rehashed ${
      median(rehashed)
    } file(s) a tick; ratio ${(tick / walk).toFixed(2)} (anchor ≤ 1.30)`,
  );
  const ok = coldRate / sslRate >= 0.8 && tick / walk <= 1.3;
  console.log(ok ? "anchors met" : "ANCHOR MISSED");
  Deno.exitCode = ok ? 0 : 1;
} finally {
  Deno.removeSync(root, { recursive: true });
}
