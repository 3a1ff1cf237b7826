/**
 * Hostile-suite cases (registered by tests/hostile_test.ts): arrow is killed -9 in the middle of an attack
 * and `arrow resume` must survive it as the run had to, end the run as it would have ended, and print what
 * it could not restore escaped; and a worker that forges the last word of the black box and kills arrow
 * must be caught by `arrow replay --check` and `arrow resume`.
 *
 * @module
 */
import { deepEqual, match, ok } from "node:assert/strict";
import { how, type Outcome, rawControl, survivalProblems } from "../helpers/hostile.ts";
import { type Campaign, done, each, pooled, refused, runnable, verified } from "./checks.ts";
import { FORGE_KILL, RESUME_FLOODS, RESUME_MANIFESTS, RESUME_NAMES, RESUME_SHAPES } from "./schedule.ts";
import { MODES } from "../helpers/hostile.ts";

type Resumed = Campaign & { killed: Map<string, Outcome> };

const cases: [string, Resumed, (o: Outcome) => void][] = [
  ["scope shapes (FIFO and socket in place)", RESUME_SHAPES, (o) => {
    verified(o, "fifo");
    verified(o, "venv");
    refused(o, "fifo_results", /^results\.json is not a regular file \(fifo\)$/);
  }],
  ["manifests (a 100 MB results.json written)", RESUME_MANIFESTS, (o) => {
    refused(o, "huge", /^results\.json is larger than 1048576 bytes/);
  }],
  ["floods (15 MB of metrics in)", RESUME_FLOODS, (o) => {
    verified(o, "flood");
    verified(o, "many_files");
  }],
];

Deno.test("kill -9 mid-attack, then arrow resume: the resume survives and ends the run as it would", async (t) => {
  try {
    for (const [what, c, check] of cases) {
      const runs = await c.runs;
      for (const m of MODES) {
        await t.step({
          name: `${m.name}: ${what}`,
          ignore: !runnable(m),
          fn: () => {
            ok(c.killed.get(m.name)?.w.killed, `the attack was never armed: ${how(c.killed.get(m.name)!.w)}`);
            const r = runs.get(m.name)!;
            deepEqual(survivalProblems(r), [], how(r.w));
            check(r);
          },
        });
      }
    }
  } finally {
    for (const [, c] of cases) done(c);
  }
});

Deno.test("resume prints a hostile file name it cannot restore escaped, never raw", async (t) => {
  const runs = await RESUME_NAMES.runs;
  try {
    await each(t, runs, "the resume survives and names what it could not restore, escaped", (o) => {
      deepEqual(survivalProblems(o), [], how(o.w));
      match(o.w.stdout, /could not restore: nodes\/holder\//);
      deepEqual(rawControl(o.w.stdout + o.w.stderr), null, JSON.stringify(o.w.stdout.slice(0, 400)));
    });
  } finally {
    done(RESUME_NAMES);
  }
});

Deno.test("a forged last verdict with the chain head rewritten and arrow killed -9 is caught", async (t) => {
  const runs = await FORGE_KILL.runs;
  try {
    await each(t, runs, "replay --check and resume refuse the black box, naming the line", async (o, m) => {
      const forged = o.w.signal === "SIGKILL";
      const r = await pooled(() => FORGE_KILL.lab.cli(m, ["replay", o.dir, "--check"]));
      const s = await pooled(() => FORGE_KILL.lab.resume(m, o.dir));
      if (!forged) {
        // Under bubblewrap the forger never sees arrow or its black box: the run ends, and verifies.
        deepEqual([o.w.code, r.code, s.w.code, o.state?.verdict], [0, 0, 0, "NO VERDICT"], how(o.w));
        return;
      }
      deepEqual(
        [
          r.code,
          /replay\.jsonl.* line \d+/.test(r.stderr),
          s.w.code,
          /replay\.jsonl line \d+/.test(s.w.stderr),
        ],
        [1, true, 1, true],
        `replay --check: ${how(r)}\nresume: ${how(s.w)} ${s.w.stdout}`,
      );
    });
  } finally {
    done(FORGE_KILL);
  }
});
