/**
 * The process finders tests use to reap what a run left must not match sandboxed workers of other runs:
 * bubblewrap lists every top-level /tmp entry as a mount, so a test's temporary base appears in the
 * command line of every bwrap process on the machine. Reaping by that match killed other tests' workers.
 */
import { deepEqual, ok } from "node:assert/strict";
import { processesMatching } from "./helpers/hostile.ts";
import { commandLine, processesMentioning, until } from "./helpers/procs.ts";

Deno.test("processesMentioning/processesMatching count a bwrap process by what it runs, not by its mounts", async () => {
  const tag = crypto.randomUUID();
  const mount = `/tmp/arrow-lab-${tag}`;
  const payload = `payload-${tag}`;
  // argv[0] "bwrap", its options listing the lab as a mount, then what it runs after "--".
  const child = new Deno.Command("bash", {
    args: [
      "-c",
      `exec -a /usr/bin/bwrap /bin/sh -c 'sleep 60; :' --bind ${mount} ${mount} -- ${payload}`,
    ],
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached: true,
  }).spawn();
  try {
    await until(
      () => {
        try {
          return Deno.readTextFileSync(`/proc/${child.pid}/cmdline`).startsWith("/usr/bin/bwrap\0");
        } catch {
          return false;
        }
      },
      30_000,
      "the exec",
    );
    ok(
      Deno.readTextFileSync(`/proc/${child.pid}/cmdline`).includes(mount),
      "the raw command line lists the mount",
    );
    ok(!commandLine(child.pid).includes(mount));
    deepEqual(processesMentioning(mount), []);
    deepEqual(processesMatching(mount), []);
    deepEqual(processesMentioning(payload), [child.pid]);
    deepEqual(processesMatching(payload), [child.pid]);
  } finally {
    Deno.kill(-child.pid, "SIGKILL"); // the shell and its sleep
    await child.status;
  }
});
