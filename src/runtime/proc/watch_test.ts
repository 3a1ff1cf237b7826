import { deepEqual, equal } from "node:assert/strict";
import { HangClock, lookEvery, overrun, pollMs, RunClock } from "./watch.ts";
import { JsonlTail } from "./tail.ts";
import { K_FREEZE } from "../../thresholds.ts";

/** A pid no process has: its CPU wait is 0, so the clock is the wall clock. */
const GONE = 2 ** 22 + 12345;

Deno.test("RunClock.due() is due once per pace and counts again from the observation", () => {
  const c = new RunClock(null, 1000);
  equal(c.due(1099, 100), false);
  equal(c.due(1100, 100), true);
  equal(c.since, 1100);
  equal(c.due(1150, 100), false);
  equal(c.due(1200, 100), true);
});

Deno.test("HangClock.look() is hung after K_FREEZE silent observation periods, not before", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const log = `${dir}/metrics.jsonl`;
    Deno.writeTextFileSync(log, "");
    const clock = new HangClock(new JsonlTail(log), GONE, 0);
    equal(clock.look(K_FREEZE * 100 - 1, 100), null);
    deepEqual(clock.look(K_FREEZE * 100, 100), {
      step: 0,
      silent_ms: K_FREEZE * 100,
      silent_from_start: true,
    });
    Deno.writeTextFileSync(log, '{"step":1}\n', { append: true });
    equal(clock.look(400, 100), null);
    deepEqual(clock.look(400 + K_FREEZE * 100, 100), {
      step: 1,
      silent_ms: K_FREEZE * 100,
      silent_from_start: false,
    });
    deepEqual(clock.finish(), [{ step: 1 }]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("HangClock.look() does not count a standby's wait for its line, and news() restarts it", () => {
  const clock = new HangClock(new JsonlTail("/nonexistent/metrics.jsonl"), GONE, 0);
  equal(clock.look(10_000, 100, true), null);
  equal(clock.look(10_000 + K_FREEZE * 100 - 1, 100), null);
  clock.news(20_000);
  equal(clock.look(20_000 + K_FREEZE * 100 - 1, 100), null);
  equal(clock.look(20_000 + K_FREEZE * 100, 100)?.silent_ms, K_FREEZE * 100);
});

Deno.test("HangClock.look() reads the log once per lookEvery at most, and always before it calls a hang", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const log = `${dir}/metrics.jsonl`;
    Deno.writeTextFileSync(log, "");
    const observe = 10_000, every = lookEvery(observe);
    equal(every, 1000);
    const clock = new HangClock(new JsonlTail(log), GONE, 0);
    equal(clock.look(0, observe), null);
    Deno.writeTextFileSync(log, '{"step":1}\n', { append: true });
    equal(clock.look(every - 1, observe), null);
    equal(clock.lines.length, 0, "not read again within lookEvery");
    equal(clock.look(every, observe), null);
    equal(clock.lines.length, 1);
    // A line written just before the silence would be a hang is read first: no hang.
    Deno.writeTextFileSync(log, '{"step":2}\n', { append: true });
    equal(clock.look(every + K_FREEZE * observe, observe), null);
    equal(clock.lines.length, 2);
    equal(clock.look(every + 2 * K_FREEZE * observe, observe)?.step, 2);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("HangClock.look() without a log never calls the child hung", () => {
  equal(new HangClock(null, GONE, 0).look(1e9, 1), null);
});

Deno.test("overrun() trips at the limit; pollMs() stays between 20 and 200 ms", () => {
  equal(overrun(99, 0, 100), null);
  deepEqual(overrun(100.4, 0, 100), { limit_ms: 100, used_ms: 100 });
  deepEqual([pollMs(1), pollMs(50), pollMs(5000)], [20, 50, 200]);
  deepEqual([lookEvery(1), lookEvery(100), lookEvery(2000), lookEvery(60_000)], [20, 100, 500, 1000]);
});
