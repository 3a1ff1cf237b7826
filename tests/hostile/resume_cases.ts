/**
 * Hostile-suite cases (registered by tests/hostile_test.ts): arrow is killed -9 in the middle of the scope
 * attacks and `arrow resume` must survive them as the run had to, end the run as it would have ended, and
 * print what it could not restore escaped; and a worker that forges the last word of the black box and
 * kills arrow must be caught by `arrow replay --check` and `arrow resume`.
 *
 * @module
 */
import { deepEqual, match, ok } from "node:assert/strict";
import { how, rawControl } from "../helpers/hostile.ts";
import { each, refused, SURVIVES, survives, verified } from "./checks.ts";
import { FORGE_KILL, KILLED, RESUME } from "./schedule.ts";

Deno.test("kill -9 mid-attack, then arrow resume: it survives and ends the run as it would", async (t) => {
  const runs = await RESUME.runs;
  await each(t, runs, "arrow was killed with the attacks in progress", (_o, m) => {
    ok(KILLED.get(m.name)?.w.killed, `the attacks were never all armed: ${how(KILLED.get(m.name)!.w)}`);
  });
  await each(t, runs, `the resume: ${SURVIVES}`, survives);
  await each(t, runs, "the attacks end as in an uninterrupted run", (o) => {
    for (const n of ["fifo", "socket", "venv", "flood", "many_files", "baseline"]) verified(o, n);
    refused(o, "fifo_results", /^results\.json is not a regular file \(fifo\)$/);
    refused(o, "huge", /^results\.json is larger than 1048576 bytes/);
    refused(o, "mock_artifact", /^acceptance exited 1$/);
  });
  await each(t, runs, "what it could not restore is named, escaped, never raw on the terminal", (o) => {
    match(o.w.stdout, /could not restore: .*nodes\/holder\//);
    deepEqual(rawControl(o.w.stdout + o.w.stderr), null, JSON.stringify(o.w.stdout.slice(0, 600)));
  });
});

Deno.test("a forged last verdict, chain head rewritten, arrow killed -9: replay --check and resume name it", async (t) => {
  const runs = await FORGE_KILL.runs;
  await each(t, runs, "the black box is refused, naming the forged line", async (o, m) => {
    const r = await FORGE_KILL.lab.cli(m, ["replay", o.dir, "--check"]);
    const s = await FORGE_KILL.lab.resume(m, o.dir);
    if (o.w.signal !== "SIGKILL") {
      // Under bubblewrap the forger sees neither arrow nor the black box: the run ends, and verifies.
      deepEqual([o.w.code, r.code, s.w.code, o.state?.verdict], [0, 0, 0, "NO VERDICT"], how(o.w));
      return;
    }
    deepEqual(
      [r.code, /line \d+/.test(r.stderr), s.w.code, /replay\.jsonl line \d+/.test(s.w.stderr)],
      [1, true, 1, true],
      `replay --check: ${how(r)}\nresume: ${how(s.w)} ${s.w.stdout}`,
    );
  });
});
