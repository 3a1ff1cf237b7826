import { equal, match, ok, throws } from "node:assert/strict";
import { acquireLock, LockedError } from "./lock.ts";

const CONTENDER = new URL("../../tests/helpers/lock_contender.ts", import.meta.url).pathname;

Deno.test("acquireLock() refuses a second holder, names the first, and is free again after release()", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const lock = acquireLock(dir);
    equal(lock.tookOverFrom, null);
    throws(() => acquireLock(dir), (e) => e instanceof LockedError && e.pid === Deno.pid);
    lock.release();
    lock.release();
    equal(Deno.readTextFileSync(`${dir}/.arrow/lock`), "", "a clean release leaves an empty record");
    const again = acquireLock(dir);
    equal(again.tookOverFrom, null, "a cleanly released lock is not a takeover");
    again.release();
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("acquireLock() ignores a forged record: only the OS lock decides", () => {
  const dir = Deno.makeTempDirSync();
  try {
    Deno.mkdirSync(`${dir}/.arrow`);
    Deno.writeTextFileSync(`${dir}/.arrow/lock`, JSON.stringify({ pid: 1, start: null }));
    const lock = acquireLock(dir);
    equal(lock.tookOverFrom, 1, "a record left without a release is reported as a takeover");
    match(Deno.readTextFileSync(`${dir}/.arrow/lock`), new RegExp(`"pid":${Deno.pid}`));
    lock.release();
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

/** A contender process and a line reader over its stdout. */
function contender(dir: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", "--no-prompt", CONTENDER, dir],
    env: { RUST_BACKTRACE: "0", NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stdin = child.stdin.getWriter();
  let buf = "";
  const next = async (): Promise<string> => {
    for (;;) {
      const nl = buf.indexOf("\n");
      if (nl >= 0) {
        const l = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        return l;
      }
      const { done, value } = await lines.read();
      if (done) throw new Error(`contender ${child.pid} ended`);
      buf += value;
    }
  };
  return {
    child,
    next,
    send: (cmd: string) => stdin.write(new TextEncoder().encode(cmd + "\n")),
    async close() {
      await stdin.close().catch(() => {});
      await lines.cancel();
      await child.status;
    },
    async kill() {
      child.kill("SIGKILL");
      await stdin.close().catch(() => {});
      await lines.cancel();
      await child.status;
    },
  };
}

Deno.test({
  name:
    "acquireLock() gives exactly one of 6 processes the lock per round; a SIGKILLed holder's is free at once",
  sanitizeOps: true,
  sanitizeResources: true,
  async fn() {
    const dir = Deno.makeTempDirSync();
    const ROUNDS = 20;
    let pool = Array.from({ length: 6 }, () => contender(dir));
    try {
      for (const c of pool) equal(await c.next(), "ready");
      let lastHolder: number | null = null;
      for (let round = 0; round < ROUNDS; round++) {
        await Promise.all(pool.map((c) => c.send("try")));
        const answers = await Promise.all(pool.map((c) => c.next()));
        const winners = answers.flatMap((a, i) => (a.startsWith("got") ? [i] : []));
        equal(winners.length, 1, `round ${round}: ${answers.join(", ")}`);
        equal(answers.filter((a) => a === "busy").length, 5);
        const w = winners[0]!;
        // The previous round's holder was killed, so its record is still there: a takeover of that pid.
        equal(answers[w], `got ${lastHolder ?? "none"}`, `round ${round}`);
        lastHolder = pool[w]!.child.pid;
        await pool[w]!.kill();
        const fresh = contender(dir);
        equal(await fresh.next(), "ready");
        pool = pool.map((c, i) => (i === w ? fresh : c));
      }
      // A clean release hands the lock on with no takeover reported.
      await pool[0]!.send("try");
      ok((await pool[0]!.next()).startsWith("got"));
      await pool[0]!.send("release");
      equal(await pool[0]!.next(), "released");
      await pool[1]!.send("try");
      equal(await pool[1]!.next(), "got none");
    } finally {
      await Promise.all(pool.map((c) => c.close()));
      Deno.removeSync(dir, { recursive: true });
    }
  },
});

Deno.test("acquireLock() refuses a lock path that is a link, and leaves its target alone", () => {
  const dir = Deno.makeTempDirSync();
  try {
    Deno.mkdirSync(`${dir}/.arrow`);
    Deno.writeTextFileSync(`${dir}/precious.txt`, "keep me");
    Deno.symlinkSync(`${dir}/precious.txt`, `${dir}/.arrow/lock`);
    throws(() => acquireLock(dir), /is not a regular file/);
    equal(Deno.readTextFileSync(`${dir}/precious.txt`), "keep me");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
