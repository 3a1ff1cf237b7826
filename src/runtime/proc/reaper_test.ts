/**
 * The reaper makes its process a child subreaper, which a test process shared with other test modules must
 * not become: each case runs in a child Deno process of its own.
 */
import { deepEqual, equal, match } from "node:assert/strict";
import { libc } from "./libc.ts";
import { descendsInTime } from "./reaper.ts";

const HERE = new URL(".", import.meta.url).href;
const CAN = libc();
const WHY = typeof CAN === "string" ? CAN : null;
if (WHY) console.log(`reaper_test: adoption cases ignored — ${WHY}`);

/** Runs `body` (a module that may import from this directory as `R/…`) in a fresh Deno; returns its JSON. */
async function inChild(body: string, perms = ["-A"]): Promise<{ out: Record<string, unknown>; err: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...perms, "--no-prompt", "--quiet", "-"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const w = child.stdin.getWriter();
  await w.write(new TextEncoder().encode(body.replaceAll('"R/', `"${HERE}`)));
  await w.close();
  const { code, stdout, stderr } = await child.output();
  const err = new TextDecoder().decode(stderr);
  equal(code, 0, err);
  return { out: JSON.parse(new TextDecoder().decode(stdout)), err };
}

const PRELUDE = `
import * as reaper from "R/reaper.ts";
import { readStat } from "R/proc_stat.ts";
const sh = (script, opts = {}) => new Deno.Command("sh", { args: ["-c", script], ...opts });
const alive = (pid) => { const s = readStat(pid); return s !== null && s.state !== "Z"; };
const comm = (pid) => { try { return Deno.readTextFileSync("/proc/" + pid + "/comm").trim(); } catch { return null; } };
// A daemon is settled once its setsid (and env) ran: a new session, the final program in place.
const settled = (pid) => readStat(pid)?.ppid === Deno.pid && readStat(pid)?.session === pid && ["sh", "sleep"].includes(comm(pid));
const until = async (cond) => { for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10)); return cond(); };
const out = {};
`;

Deno.test({
  name: "sweep() kills a worker's scrubbed, re-sessioned daemon once the worker has ended, and nothing else",
  ignore: WHY !== null,
  fn: async () => {
    const { out } = await inChild(
      PRELUDE + `
out.enabled = reaper.enable();
out.adoption = reaper.adoption();
// Adopted before any worker ran (as by a parallel test module): no worker can have left it.
const before = await sh("setsid sleep 30 </dev/null >/dev/null 2>&1 & echo $!", { stdout: "piped" }).output();
const unrelated = Number(new TextDecoder().decode(before.stdout));
await until(() => readStat(unrelated)?.ppid === Deno.pid);
const worker = sh("(setsid env -i sh -c 'exec sleep 30' </dev/null >/dev/null 2>&1 & echo $!); read x", {
  stdin: "piped", stdout: "piped", detached: true, env: { ARROW_TOKEN: "t1" },
}).spawn();
const w = reaper.hold(worker.pid, readStat(worker.pid).start, "t1", {});
const reader = worker.stdout.getReader();
const daemon = Number(new TextDecoder().decode((await reader.read()).value));
out.adopted = await until(() => settled(daemon));
out.daemonEnv = Deno.readTextFileSync("/proc/" + daemon + "/environ").includes("ARROW_TOKEN");
out.whileRunning = await reaper.sweep();
out.aliveWhileRunning = alive(daemon);
await worker.stdin.close();
await worker.status;
reaper.release(w);
out.adoptionAfter = reaper.adoption();
out.killed = (await reaper.sweep()).map((p) => p === daemon ? "daemon" : p === unrelated ? "unrelated" : p);
out.daemonGone = readStat(daemon) === null;
out.unrelatedAlive = alive(unrelated);
Deno.kill(unrelated, "SIGKILL");
console.log(JSON.stringify(out));
`,
    );
    deepEqual(out, {
      enabled: true,
      adoption: "on",
      adopted: true,
      daemonEnv: false,
      whileRunning: [],
      aliveWhileRunning: true,
      adoptionAfter: "off",
      killed: ["daemon"],
      daemonGone: true,
      unrelatedAlive: true,
    });
  },
});

Deno.test({
  name: "sweep() waits for every worker that may have left an orphan: one started after it cannot have",
  ignore: WHY !== null,
  fn: async () => {
    const { out } = await inChild(
      PRELUDE + `
reaper.enable();
const daemon = (tag) => "(setsid sh -c 'exec sleep 30' " + tag + " </dev/null >/dev/null 2>&1 & echo $!)";
const start = (script) => sh(script, { stdin: "piped", stdout: "piped", detached: true }).spawn();
const line = async (r) => Number(new TextDecoder().decode((await r.read()).value));
const [mine, theirs] = [{}, {}];
// a leaves a0 before b exists, and a1 once b runs too: a1 may be b's as far as anyone can tell.
const a = start(daemon("a0") + "; read go; " + daemon("a1") + "; read x");
const wa = reaper.hold(a.pid, readStat(a.pid).start, null, mine);
const ra = a.stdout.getReader();
const a0 = await line(ra);
await until(() => settled(a0));
const b = start(daemon("b") + "; read x");
const wb = reaper.hold(b.pid, readStat(b.pid).start, null, theirs);
const db = await line(b.stdout.getReader());
const wa_in = a.stdin.getWriter();
await wa_in.write(new TextEncoder().encode("go\\n"));
const a1 = await line(ra);
await until(() => settled(a1) && settled(db));
const name = (p) => ({ [a0]: "a0", [a1]: "a1", [db]: "b" })[p] ?? p;
await wa_in.close();
await a.status;
reaper.release(wa);
out.closing = (await reaper.sweep(mine)).map(name);
out.alive = [a1, db].filter(alive).map(name);
await b.stdin.close();
await b.status;
reaper.release(wb);
out.after = (await reaper.sweep()).map(name).sort();
console.log(JSON.stringify(out));
`,
    );
    deepEqual(out, { closing: ["a0"], alive: ["a1", "b"], after: ["a1", "b"] });
  },
});

Deno.test({
  name: "reapZombies() collects an adopted orphan that ended by itself",
  ignore: WHY !== null,
  fn: async () => {
    const { out } = await inChild(
      PRELUDE + `
reaper.enable();
const worker = sh("(setsid sh -c 'read x' & echo $!); read y", { stdin: "piped", stdout: "piped", detached: true }).spawn();
const w = reaper.hold(worker.pid, readStat(worker.pid).start, null, {});
const orphan = Number(new TextDecoder().decode((await worker.stdout.getReader().read()).value));
await until(() => readStat(orphan)?.ppid === Deno.pid);
Deno.kill(orphan, "SIGTERM");
out.zombie = await until(() => readStat(orphan)?.state === "Z");
out.reaped = await until(() => { reaper.reapZombies(); return readStat(orphan) === null; });
await worker.stdin.close();
await worker.status;
reaper.release(w);
console.log(JSON.stringify(out));
`,
    );
    deepEqual(out, { zombie: true, reaped: true });
  },
});

Deno.test("enable() without FFI permission says why, once, and adopts nothing", async () => {
  const { out, err } = await inChild(
    PRELUDE + `
out.first = reaper.enable();
out.second = reaper.enable();
out.adoption = reaper.adoption();
out.swept = await reaper.sweep();
console.log(JSON.stringify(out));
`,
    ["--allow-read", "--allow-run", "--allow-env"],
  );
  equal(out.first, false);
  equal(out.second, false);
  match(String(out.adoption), /FFI/);
  deepEqual(out.swept, []);
  equal(err.match(/cannot adopt orphaned worker processes/g)?.length, 1, err);
});

Deno.test({
  name: "libc() marks and unmarks a process as child subreaper",
  ignore: WHY !== null,
  fn: async () => {
    const { out } = await inChild(`
import { libc } from "R/libc.ts";
const lc = libc();
const seen = [lc.isSubreaper(), lc.setSubreaper(true), lc.isSubreaper(), lc.setSubreaper(false), lc.isSubreaper()];
console.log(JSON.stringify({ seen, notChild: lc.reap(1) }));
`);
    deepEqual(out, { seen: [false, true, true, true, false], notChild: "none" });
  },
});

Deno.test("descendsInTime(): a later tick descends; within one tick, only a later pid (modulo pid_max) does", () => {
  const d = (pid: number, start: number, ancestor = 1000, aStart = 50, max = 32768) =>
    descendsInTime(ancestor, BigInt(aStart), pid, BigInt(start), max);
  deepEqual(
    [d(900, 51), d(1001, 49), d(1001, 50), d(999, 50), d(1000, 50), d(5, 50, 32760), d(32000, 50, 100)],
    [true, false, true, false, false, true, false],
  );
});
