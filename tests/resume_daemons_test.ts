/**
 * kill -9 leaves nothing behind: an arrow killed mid-run leaves its worker's detached daemons running (one
 * that keeps its environment, one that scrubbed it and left the session), and `arrow resume` finds and stops
 * both before it restarts anything. Run with `--unsandboxed` and bubblewrap hidden from PATH: under
 * bubblewrap the pid namespace dies with the worker, so nothing could be left to find.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { stringify } from "yaml";
import { arrow, spawnArrow } from "./helpers/cli.ts";
import { MODES } from "./helpers/hostile.ts";
import { commandLine, processesMentioning, until } from "./helpers/procs.ts";

const UNSANDBOXED = MODES.find((m) => m.name === "unsandboxed")!;
/** Each daemon writes its own pid into its beat file: the test knows the daemons by pid, never by a listing
 * of processes (a loop's child between fork and exec carries the loop's command line too, and under load
 * such a child was counted as a third daemon). */
const LOOP = `'while :; do echo $$ > "$0"; sleep 0.1; done'`;

/** First attempt: leave both daemons and wait to be killed; after the resume: finish at once. */
function plan(dir: string): string {
  const once = `${dir}/first-attempt`;
  const script = [
    `if [ -e ${once} ]; then printf '{"node": "W"}' > results.json; exit 0; fi`,
    `: > ${once}`,
    `setsid sh -c ${LOOP} ${dir}/beat-kept &`,
    `setsid env -i /bin/sh -c ${LOOP} ${dir}/beat-scrubbed </dev/null >/dev/null 2>&1 &`,
    "sleep 600",
  ].join("\n");
  const doc = {
    question: "Does a killed run leave daemons behind?",
    protocol: { version: "p1", metric: "dev_r2", direction: "maximize" },
    nodes: [{
      id: "W",
      kind: "fast",
      role: "other",
      budget: { wall: "120s" },
      worker: { type: "command", argv: ["/bin/sh", "-c", script] },
    }],
    edges: [],
  };
  // The plan in a directory of its own: an unconfined worker's write beside the plan is a SCOPE_VIOLATION.
  Deno.mkdirSync(`${dir}/plan`);
  Deno.writeTextFileSync(`${dir}/plan/plan.yaml`, stringify(doc));
  return `${dir}/plan/plan.yaml`;
}

/** The pid a daemon wrote into its beat file, or null before its first beat (or mid-write). */
const pidIn = (path: string): number | null => {
  try {
    const n = Number(Deno.readTextFileSync(path).trim());
    return Number.isInteger(n) && n > 0 ? n : null;
  } catch {
    return null;
  }
};

/** True while `pid` is the daemon's loop (alive, not a zombie, running the loop's shell). */
const alive = (pid: number): boolean => {
  try {
    if (/\) Z /.test(Deno.readTextFileSync(`/proc/${pid}/stat`))) return false;
    return commandLine(pid).split("\0")[2]?.startsWith("while :") ?? false;
  } catch {
    return false;
  }
};

Deno.test("arrow resume after kill -9 stops the daemons the dead run's worker detached, scrubbed or not", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "arrow-resume-daemons-" });
  const env = { PATH: UNSANDBOXED.path, HOME: Deno.env.get("HOME") ?? dir };
  try {
    const child = spawnArrow(
      ["run", plan(dir), "--real", "--quiet", "--runs-dir", `${dir}/runs`, ...UNSANDBOXED.flags],
      "null",
      env,
    );
    const beats = [`${dir}/beat-kept`, `${dir}/beat-scrubbed`];
    await until(() => beats.every((b) => pidIn(b) !== null), 60_000, "both daemons");
    child.kill("SIGKILL");
    await child.status;
    const left = beats.map((b) => pidIn(b)!);
    deepEqual(left.map(alive), [true, true], "both daemons outlived the killed arrow (the case to clear)");
    const runDir = `${dir}/runs/${[...Deno.readDirSync(`${dir}/runs`)][0]!.name}`;
    const r = await arrow(["resume", runDir], { env });
    equal(r.code, 0, r.stderr);
    const stopped = r.stdout.match(/stopped \d+ process group\(s\) left by the dead run: ([\d, ]+)/)?.[1] ??
      "";
    const pids = stopped.split(",").map((s) => Number(s.trim()));
    for (const pid of left) ok(pids.includes(pid), `the resume stopped daemon ${pid}: ${r.stdout}`);
    // SIGKILL is delivered by the time kill() returns, but the exit is the kernel's to finish: wait for it.
    await until(() => left.filter(alive).length === 0, 10_000, "the daemons' exit after the resume");
    ok(
      r.stdout.includes("RESEARCH") || r.stdout.includes("VERDICT") || r.stdout.includes("RESULT"),
      r.stdout,
    );
  } finally {
    for (const pid of processesMentioning(`${dir}/beat-`)) Deno.kill(pid, "SIGKILL");
    for (const pid of processesMentioning(`${dir}/first-attempt`)) Deno.kill(pid, "SIGKILL");
    Deno.removeSync(dir, { recursive: true });
  }
});
