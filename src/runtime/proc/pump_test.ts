import { equal, ok } from "node:assert/strict";
import { drain, openLog, pump, within } from "./pump.ts";

/** A shell that prints a line and leaves a background sleeper holding its stdout; returns the sleeper's pid. */
function holder(): { child: Deno.ChildProcess; sleeper: Promise<number> } {
  const child = new Deno.Command("sh", {
    args: ["-c", "sleep 30 2>/dev/null & echo $! >&2; echo hello"],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const sleeper = new Response(child.stderr).text().then((t) => Number(t.trim()));
  return { child, sleeper };
}

Deno.test("drain() gives up after its grace when a leftover holds the pipe, keeping what was written", async () => {
  const dir = Deno.makeTempDirSync();
  const { child, sleeper } = holder();
  const p = pump(child.stdout, openLog(`${dir}/out.log`));
  equal((await child.status).code, 0);
  equal(await drain([p], 100), false, "the sleeper still holds the pipe");
  ok(await within(p.done, 0), "a cancelled pump has ended");
  equal(Deno.readTextFileSync(`${dir}/out.log`), "hello\n");
  Deno.kill(await sleeper, "SIGKILL");
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("drain() is true once every writer is gone", async () => {
  const dir = Deno.makeTempDirSync();
  const child = new Deno.Command("sh", { args: ["-c", "echo one; echo two"], stdout: "piped" }).spawn();
  const p = pump(child.stdout, openLog(`${dir}/out.log`));
  await child.status;
  equal(await drain([p], 5000), true);
  equal(Deno.readTextFileSync(`${dir}/out.log`), "one\ntwo\n");
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("openLog() replaces a FIFO or a symlink left in the log's place by a regular file", () => {
  const dir = Deno.makeTempDirSync();
  new Deno.Command("mkfifo", { args: [`${dir}/fifo.log`] }).outputSync();
  Deno.writeTextFileSync(`${dir}/target`, "keep");
  Deno.symlinkSync(`${dir}/target`, `${dir}/link.log`);
  for (const name of ["fifo.log", "link.log"]) {
    const f = openLog(`${dir}/${name}`);
    ok(f, name);
    f.writeSync(new TextEncoder().encode("x"));
    f.close();
    ok(Deno.lstatSync(`${dir}/${name}`).isFile, `${name} is a regular file now`);
  }
  equal(Deno.readTextFileSync(`${dir}/target`), "keep", "the link's target was not written through");
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("within() tells whether a promise settled in time, a rejection counting as settled", async () => {
  equal(await within(Promise.resolve(1), 50), true);
  equal(await within(Promise.reject(new Error("x")), 50), true);
  equal(await within(new Promise(() => {}), 20), false);
});
