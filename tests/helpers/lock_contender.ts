/**
 * A process that contends for a run lock on command, for the lock's multi-process test: reads `try` and
 * `release` lines on stdin and answers each with one line on stdout (`got <tookOverFrom>`, `busy` or
 * `released`). It exits when stdin closes.
 *
 * @module
 */
import { acquireLock, type Lock, LockedError } from "../../src/runtime/lock.ts";

const runDir = Deno.args[0]!;
const out = (s: string) => Deno.stdout.writeSync(new TextEncoder().encode(s + "\n"));
let held: Lock | null = null;
out("ready");
for await (const line of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
  for (const cmd of line.split("\n").filter(Boolean)) {
    if (cmd === "try") {
      try {
        held = acquireLock(runDir);
        out(`got ${held.tookOverFrom ?? "none"}`);
      } catch (e) {
        if (!(e instanceof LockedError)) throw e;
        out("busy");
      }
    } else if (cmd === "release") {
      held?.release();
      held = null;
      out("released");
    }
  }
}
