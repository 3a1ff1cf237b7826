import { deepEqual } from "node:assert/strict";
import { namedPaths, RefusalLog, refusedPaths, StderrRefusals } from "./refusals.ts";
import type { RunState } from "../../model/state.ts";

Deno.test("namedPaths() reads the paths that sh, coreutils and Python name in their EROFS messages", () => {
  const cwd = "/run/nodes/B";
  deepEqual(namedPaths("sh: 1: cannot create ../A/evil.txt: Read-only file system", cwd), [
    "/run/nodes/A/evil.txt",
  ]);
  deepEqual(namedPaths("touch: cannot touch '/run/nodes/A/x y': Read-only file system", cwd), [
    "/run/nodes/A/x y",
  ]);
  deepEqual(
    namedPaths("OSError: [Errno 30] Read-only file system: '/run/nodes/A/./m.pkl'", cwd),
    ["/run/nodes/A/m.pkl"],
  );
  deepEqual(namedPaths("see https://example.com/a/b (Read-only file system)", cwd), []);
});

Deno.test("refusedPaths() keeps only EROFS lines' paths under the lanes Arrow bound read-only", () => {
  const text = [
    "sh: 1: cannot create ../A/evil.txt: Read-only file system",
    "cannot write /etc/motd: Read-only file system",
    "cp: cannot create regular file '/run/nodes/A/y': Permission denied",
    "sh: 1: cannot create ../A/evil.txt: Read-only file system",
  ].join("\n");
  deepEqual(refusedPaths(text, ["/run/nodes/A"], "/run/nodes/B"), ["/run/nodes/A/evil.txt"]);
  deepEqual(refusedPaths(text, ["/run/nodes/AB"], "/run/nodes/B"), [], "a lane is a directory, not a prefix");
});

Deno.test("StderrRefusals reads from the attempt's start on, a line split across reads once, each path once", () => {
  const dir = Deno.makeTempDirSync({ prefix: "arrow-refusals-test-" });
  const err = `${dir}/B.err`;
  try {
    Deno.writeTextFileSync(err, "touch: cannot touch '/lane/old': Read-only file system\n");
    const r = new StderrRefusals(err, ["/lane"], "/scope");
    deepEqual(r.read(), [], "an earlier attempt's lines are not this one's");
    Deno.writeTextFileSync(err, "touch: cannot touch '/lane/a': Read-only", { append: true });
    deepEqual(r.read(), [], "half a line waits for its end");
    Deno.writeTextFileSync(err, " file system\ntouch: cannot touch '/lane/a': Read-only file system\n", {
      append: true,
    });
    deepEqual(r.read(), ["/lane/a"]);
    deepEqual(r.read(), []);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("RefusalLog notes an attempt's read-only lanes once, and a new attempt's instead of the old", () => {
  const log = new RefusalLog((p) => p.replace("/run/", ""));
  const state = { nodes: { B: {} } } as unknown as RunState;
  deepEqual(log.notes(state), []);
  log.add("B", 1, "worker", [{ path: "/run/nodes/A", why: "more than 2,000 files (COPY_LIMIT)" }]);
  log.add("B", 1, "worker", [{ path: "/run/nodes/A", why: "more than 2,000 files (COPY_LIMIT)" }]);
  const first = [{ attempt: 1, by: "worker", path: "nodes/A", why: "more than 2,000 files (COPY_LIMIT)" }];
  deepEqual(log.notes(state), [{ e: "note", node: "B", set: { refused: first } }]);
  (state.nodes.B as { refused?: unknown }).refused = first;
  deepEqual(log.notes(state), [], "what the state holds is not noted again");
  log.add("B", 2, "acceptance", [{ path: "/run/nodes/B", why: "more than 64 MiB (COPY_LIMIT)" }]);
  deepEqual(log.notes(state), [{
    e: "note",
    node: "B",
    set: {
      refused: [{ attempt: 2, by: "acceptance", path: "nodes/B", why: "more than 64 MiB (COPY_LIMIT)" }],
    },
  }]);
});

Deno.test("StderrRefusals on an agent's transcript reads its command records' stderr, nothing else", () => {
  const dir = Deno.makeTempDirSync({ prefix: "arrow-refusals-test-" });
  const tr = `${dir}/N4.jsonl`;
  try {
    Deno.writeTextFileSync(tr, "");
    const r = new StderrRefusals(tr, ["/run/nodes/N2"], "/run/nodes/N4", true);
    const lines = [
      { type: "reply", content: "echo x > /run/nodes/N2/a: Read-only file system" },
      { type: "command", stdout: "", stderr: "bash: line 1: ../N2/evil.txt: Read-only file system\n" },
    ];
    Deno.writeTextFileSync(tr, lines.map((l) => JSON.stringify(l)).join("\n") + "\nnot json\n");
    deepEqual(r.read(), ["/run/nodes/N2/evil.txt"], "what the agent said is no evidence; what bash said is");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
