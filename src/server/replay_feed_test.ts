import { deepEqual, equal } from "node:assert/strict";
import { CACHE_BUDGET, FRAME_CAP, frameOf, ReplayFeed } from "./replay_feed.ts";

const text = (b: Uint8Array | null) => (b === null ? null : new TextDecoder().decode(b));

const line = (tick: number, final = false, pad = 0) =>
  JSON.stringify({
    events: final
      ? [{ e: "verdict", verdict: "NO VERDICT", detail: {} }]
      : pad
      ? [{ e: "note", x: "y".repeat(pad) }]
      : [],
    tick,
  });

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function poked(feed: ReplayFeed): Promise<void> {
  feed.poke();
  await feed.settled();
}

Deno.test("ReplayFeed.poke() indexes complete lines only, in order, once, and wakes subscribers", () =>
  withDir(async (dir) => {
    const path = `${dir}/replay.jsonl`;
    const feed = new ReplayFeed(dir);
    await feed.settled();
    equal(feed.entries.length, 0);
    let wakes = 0;
    feed.subscribe(() => wakes++);
    Deno.writeTextFileSync(path, line(0) + "\n" + line(1).slice(0, 5));
    await poked(feed);
    deepEqual(feed.entries.map((e) => e.tick), [0]);
    Deno.writeTextFileSync(path, line(1).slice(5) + "\n" + line(2) + "\n", { append: true });
    feed.poke();
    await poked(feed);
    deepEqual(feed.entries.map((e) => e.tick), [0, 1, 2]);
    Deno.writeTextFileSync(path, line(3, true) + "\n" + line(4) + "\n", { append: true });
    await poked(feed);
    deepEqual(feed.entries.map((e) => e.tick), [0, 1, 2, 3], "nothing after the verdict line");
    equal(feed.final, true);
    equal(wakes, 3);
    equal(text(await feed.frame(feed.entries[1]!)), `id: 1\nevent: tick\ndata: ${line(1)}\n\n`);
  }));

Deno.test("ReplayFeed never holds a line over FRAME_CAP: it keeps its tick and marks it big", () =>
  withDir(async (dir) => {
    const huge = line(1, false, 3 * FRAME_CAP);
    Deno.writeTextFileSync(`${dir}/replay.jsonl`, [line(0), huge, line(2)].join("\n") + "\n");
    const feed = new ReplayFeed(dir);
    await feed.settled();
    deepEqual(feed.entries.map((e) => [e.tick, e.big]), [[0, false], [1, true], [2, false]]);
    equal(feed.entries[1]!.bytes, huge.length);
    equal(feed.entries[1]!.frame, undefined);
    equal(await feed.frame(feed.entries[1]!), null);
    equal(feed.entries[2]!.offset, line(0).length + 1 + huge.length + 1);
  }));

Deno.test("ReplayFeed keeps recent text within its budget and reads older lines back from the file", () =>
  withDir(async (dir) => {
    const n = Math.ceil((2 * CACHE_BUDGET) / (64 * 1024));
    const lines = Array.from({ length: n }, (_, t) => line(t, false, 64 * 1024));
    Deno.writeTextFileSync(`${dir}/replay.jsonl`, lines.join("\n") + "\n");
    const feed = new ReplayFeed(dir);
    await feed.settled();
    equal(feed.entries.length, n);
    const held = feed.entries.filter((e) => e.frame !== undefined);
    equal(held.reduce((s, e) => s + e.frame!.length, 0) <= CACHE_BUDGET, true);
    equal(feed.entries[0]!.frame, undefined, "the oldest frame was let go");
    equal(text(await feed.frame(feed.entries[0]!)), text(frameOf(0, new TextEncoder().encode(lines[0]!))));
  }));

Deno.test("ReplayFeed ignores a replay.jsonl that is a symlink or a FIFO", () =>
  withDir(async (dir) => {
    Deno.writeTextFileSync(`${dir}/elsewhere.jsonl`, line(0) + "\n");
    Deno.symlinkSync(`${dir}/elsewhere.jsonl`, `${dir}/replay.jsonl`);
    const linked = new ReplayFeed(dir);
    await linked.settled();
    equal(linked.entries.length, 0);
    Deno.removeSync(`${dir}/replay.jsonl`);
    const mk = await new Deno.Command("mkfifo", { args: [`${dir}/replay.jsonl`] }).output();
    equal(mk.code, 0);
    const fifo = new ReplayFeed(dir);
    await fifo.settled();
    equal(fifo.entries.length, 0);
  }));

Deno.test("ReplayFeed.close() wakes its subscribers and stops reading", () =>
  withDir(async (dir) => {
    const feed = new ReplayFeed(dir);
    await feed.settled();
    let woke = false;
    feed.subscribe(() => woke = true);
    feed.close();
    equal(woke, true);
    equal(feed.closed, true);
  }));

Deno.test("ReplayFeed.indexAfter() finds the first line past a tick", () =>
  withDir(async (dir) => {
    Deno.writeTextFileSync(`${dir}/replay.jsonl`, [0, 2, 5].map((t) => line(t) + "\n").join(""));
    const feed = new ReplayFeed(dir);
    await feed.settled();
    deepEqual([-1, 0, 1, 2, 4, 5, 9].map((t) => feed.indexAfter(t)), [0, 1, 1, 2, 2, 3, 3]);
  }));

Deno.test("frameOf() wraps a line in one tick event and turns carriage returns into spaces", () => {
  const enc = new TextEncoder();
  equal(
    text(frameOf(4, enc.encode('{"events":[],"tick":4}'))),
    'id: 4\nevent: tick\ndata: {"events":[],"tick":4}\n\n',
  );
  equal(
    text(frameOf(6, enc.encode('{"events":[],\r"tick":6}'))),
    'id: 6\nevent: tick\ndata: {"events":[], "tick":6}\n\n',
  );
});

Deno.test("ReplayFeed skips lines that are not replay lines and counts them", () =>
  withDir(async (dir) => {
    const junk = ["{}", "nope", '{"events":[],"tick":1.5}', "[1]", '{"tick":2', line(0)];
    Deno.writeTextFileSync(`${dir}/replay.jsonl`, [line(0), ...junk, line(3)].join("\n") + "\n");
    const feed = new ReplayFeed(dir);
    await feed.settled();
    deepEqual(feed.entries.map((e) => e.tick), [0, 3]);
    equal(feed.skipped, junk.length, "a repeated tick is skipped too");
  }));
