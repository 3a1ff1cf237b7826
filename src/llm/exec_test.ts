import { equal, match, ok } from "node:assert/strict";
import { runCommand } from "./exec.ts";

const opts = { cwd: "/", env: { PATH: "/usr/bin:/bin" }, timeoutMs: 10_000, maxBytes: 1000 };

Deno.test("runCommand() keeps the head and tail of a large output and counts what it left out", async () => {
  const r = await runCommand(["bash", "-c", "seq 1 20000; echo err >&2; exit 3"], opts);
  equal(r.exit, 3);
  equal(r.stdout_bytes, 108894);
  ok(r.stdout.startsWith("1\n2\n3\n"));
  ok(r.stdout.endsWith("19999\n20000\n"));
  match(r.stdout, /\n…\[107894 bytes omitted\]…\n/);
  equal(r.stderr, "err\n");
});

Deno.test("runCommand() runs with only the environment it is given, stdin closed", async () => {
  const r = await runCommand(["bash", "-c", 'echo "[$HOME][$PATH]"; cat; echo "in=$?"'], opts);
  equal(r.stdout, "[][/usr/bin:/bin]\nin=0\n");
});
