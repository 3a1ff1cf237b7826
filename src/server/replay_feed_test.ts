import { deepEqual, equal } from "node:assert/strict";
import { type FeedLine, parseLine, ReplayFeed } from "./replay_feed.ts";

const line = (tick: number, final = false) =>
  JSON.stringify({ events: final ? [{ e: "verdict", verdict: "NO VERDICT", detail: {} }] : [], tick });

Deno.test("ReplayFeed.poke() passes on complete lines only, in order, once", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/replay.jsonl`;
    const feed = new ReplayFeed(dir);
    equal(feed.lines.length, 0);
    const seen: number[] = [];
    let ended = 0;
    feed.follow(-1, { line: (l) => seen.push(l.tick), end: () => ended++ });
    Deno.writeTextFileSync(path, line(0) + "\n" + line(1).slice(0, 5));
    feed.poke();
    deepEqual(seen, [0]);
    Deno.writeTextFileSync(path, line(1).slice(5) + "\n" + line(2) + "\n", { append: true });
    feed.poke();
    feed.poke();
    deepEqual(seen, [0, 1, 2]);
    Deno.writeTextFileSync(path, line(3, true) + "\n", { append: true });
    feed.poke();
    deepEqual(seen, [0, 1, 2, 3]);
    equal(ended, 1);
    equal(feed.final, true);
    equal(feed.followers, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("ReplayFeed.follow() replays kept lines after a tick and ends at once for a finished run", async () => {
  const dir = await Deno.makeTempDir();
  try {
    Deno.writeTextFileSync(`${dir}/replay.jsonl`, [0, 1, 2].map((t) => line(t, t === 2) + "\n").join(""));
    const feed = new ReplayFeed(dir);
    const got: FeedLine[] = [];
    let ended = false;
    feed.follow(0, { line: (l) => got.push(l), end: () => ended = true });
    deepEqual(got.map((l) => l.tick), [1, 2]);
    equal(ended, true);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("ReplayFeed.close() ends its followers", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const feed = new ReplayFeed(dir);
    let ended = false;
    feed.follow(-1, { line: () => {}, end: () => ended = true });
    feed.close();
    equal(ended, true);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("parseLine() reads tick and finality and refuses what is not a replay line", () => {
  deepEqual(parseLine(line(4)), { tick: 4, text: line(4), final: false });
  equal(parseLine(line(5, true))?.final, true);
  equal(parseLine("{}"), null);
  equal(parseLine("nope"), null);
});
