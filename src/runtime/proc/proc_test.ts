import { deepEqual, equal, ok } from "node:assert/strict";
import { isAlive, spawn, stopGroup } from "./proc.ts";

const ENV = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" };

/** The pid a worker wrote into `file` (it starts a background process and records it there). */
function pidIn(file: string): number {
  return Number(Deno.readTextFileSync(file).trim());
}

Deno.test("spawn() reports the process's own exit even when a background process keeps its pipes open", async () => {
  const dir = Deno.makeTempDirSync();
  const p = spawn("sh", ["-c", `setsid sleep 30 & echo $! > ${dir}/bg; echo out; exit 3`], {
    env: ENV,
    stdin: "null",
    stdout: "null",
    stdoutFile: `${dir}/out`,
    stderrFile: `${dir}/err`,
  });
  const s = await p.status;
  deepEqual([s.code, p.exited?.code], [3, 3]);
  equal(Deno.readTextFileSync(`${dir}/out`), "out\n");
  equal(p.drained, false, "the pipes were given up after the grace");
  ok(isAlive(pidIn(`${dir}/bg`)), "the holder lives on: spawn() itself kills nothing");
  Deno.kill(pidIn(`${dir}/bg`), "SIGKILL");
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("spawn() runs settle before it waits on the pipes, so a leftover it stops costs no grace", async () => {
  const dir = Deno.makeTempDirSync();
  const order: string[] = [];
  const p = spawn("sh", ["-c", `setsid sleep 30 & echo $! > ${dir}/bg`], {
    env: ENV,
    stdin: "null",
    stdout: "null",
    stdoutFile: `${dir}/out`,
    settle: () => {
      order.push(`settle, exited=${p.exited !== null}`);
      Deno.kill(pidIn(`${dir}/bg`), "SIGKILL");
    },
  });
  await p.status;
  order.push("status");
  deepEqual(order, ["settle, exited=false", "status"]);
  equal(p.drained, true, "the pipe closed with its holder: nothing was cut off");
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("stopGroup() returns after SIGKILL even when the group's leftover holds the pipes", async () => {
  const dir = Deno.makeTempDirSync();
  const p = spawn("sh", [
    "-c",
    `trap '' TERM; setsid sleep 30 & echo $! > ${dir}/bg; while :; do sleep 1; done`,
  ], {
    env: ENV,
    stdin: "null",
    stdout: "null",
    stdoutFile: `${dir}/out`,
  });
  while (!exists(`${dir}/bg`) || !Deno.readTextFileSync(`${dir}/bg`).trim()) await tick();
  await stopGroup(p, 100);
  equal(p.exited?.signal, "SIGKILL", "TERM was ignored, KILL ended it");
  ok(!isAlive(p.pid));
  try {
    Deno.kill(pidIn(`${dir}/bg`), "SIGKILL");
  } catch {
    // the reaper may have ended the escaped sleep already
  }
  Deno.removeSync(dir, { recursive: true });
});

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

const tick = () => new Promise((r) => setTimeout(r, 10));
