import { deepEqual, equal } from "node:assert/strict";
import { CACHE_BUDGET, FRAME_CAP, parseLine, ReplayFeed } from "./replay_feed.ts";

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
    equal(await feed.text(feed.entries[1]!), line(1));
  }));

Deno.test("ReplayFeed never holds a line over FRAME_CAP: it keeps its tick and marks it big", () =>
  withDir(async (dir) => {
    const huge = line(1, false, 3 * FRAME_CAP);
    Deno.writeTextFileSync(`${dir}/replay.jsonl`, [line(0), huge, line(2)].join("\n") + "\n");
    const feed = new ReplayFeed(dir);
    await feed.settled();
    deepEqual(feed.entries.map((e) => [e.tick, e.big]), [[0, false], [1, true], [2, false]]);
    equal(feed.entries[1]!.bytes, huge.length);
    equal(feed.entries[1]!.text, undefined);
    equal(await feed.text(feed.entries[1]!), null);
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
    const held = feed.entries.filter((e) => e.text !== undefined);
    equal(held.reduce((s, e) => s + e.text!.length, 0) <= CACHE_BUDGET, true);
    equal(feed.entries[0]!.text, undefined, "the oldest text was let go");
    equal(await feed.text(feed.entries[0]!), lines[0]);
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

Deno.test("parseLine() reads tick and finality and refuses what is not a replay line", () => {
  deepEqual(parseLine(line(4)), { tick: 4, text: line(4), final: false });
  equal(parseLine(line(5, true))?.final, true);
  equal(parseLine('{"events":[],\r"tick":6}')?.text, '{"events":[], "tick":6}');
  for (const bad of ["{}", "nope", '{"events":[],"tick":1.5}', '{"events":{},"tick":1}', "[[[[" + "]]]]"]) {
    equal(parseLine(bad), null, bad);
  }
});
