/**
 * Tree executors under bubblewrap: a write outside the lane that Deno's permission layer never saw — a
 * program the step started, standing in here for any way past Deno — lands in the child's own /tmp shadow
 * (from the one layout builder) and is named with its path, operation and `stopped_by`, so the tree's
 * overwatch blames it (SCOPE_VIOLATION) instead of bubblewrap refusing it in silence. Where the layout has to
 * leave a lane a read-only bind (a $HOME past MAX_SHADOWED_ENTRIES), the lane is reported with the child's
 * outcome (for its node's record) and a write refused there is blamed when the program's stderr names it.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { ProcJournal } from "../src/runtime/proc/proc_journal.ts";
import { runChild, shadowEscapes } from "../src/tree/execute/child.ts";
import { childCommand, type SandboxContext } from "../src/tree/execute/sandbox.ts";
import { judge } from "../src/tree/overwatch.ts";
import type { ExecResult, TreeNode } from "../src/tree/types.ts";
import { exists } from "../src/cli/rundir.ts";
import { BWRAP, needs, NO_BWRAP } from "./helpers/needs.ts";
import { MAX_SHADOWED_ENTRIES } from "../src/runtime/sandbox/bwrap.ts";

function context(dir: string): SandboxContext {
  Deno.mkdirSync(`${dir}/run/data`, { recursive: true });
  Deno.mkdirSync(`${dir}/run/nodes/n1`, { recursive: true });
  Deno.mkdirSync(`${dir}/user`, { recursive: true });
  Deno.writeTextFileSync(`${dir}/user/all.csv`, "x,y\n1,2\n");
  return {
    runDir: `${dir}/run`,
    runsDir: dir,
    dataDir: `${dir}/run/data`,
    taskFile: `${dir}/run/data/task.json`,
    devFile: `${dir}/run/data/dev.csv`,
    userCsv: `${dir}/user/all.csv`,
    bwrap: BWRAP,
  };
}

/** Runs `script` with sh where n1's executor harness would run, in the executor's own lane. */
async function inExecutorLane(ctx: SandboxContext, script: string) {
  const scope = `${ctx.runDir}/nodes/n1`;
  Deno.mkdirSync(`${ctx.runDir}/.arrow/audit/n1`, { recursive: true });
  const cmd = childCommand(ctx, "execute", "n1", scope, `${ctx.runDir}/.arrow/audit/n1/execute.jsonl`);
  equal(cmd.sandbox, "bwrap+deno");
  const at = cmd.args.indexOf("--");
  cmd.args = [...cmd.args.slice(0, at + 1), "sh", "-c", script];
  const out = await runChild(cmd, {
    label: "n1",
    observeMs: 1000,
    wallMs: 30_000,
    journal: new ProcJournal(ctx.runDir),
    logDir: `${ctx.runDir}/logs`,
  });
  return { cmd, out };
}

Deno.test({
  name: "a tree executor's write past Deno's layer is caught in its bubblewrap shadow and blamed",
  ignore: needs("tree_shadow_test", "the bubblewrap case", NO_BWRAP),
  fn: async () => {
    const dir = Deno.makeTempDirSync({ prefix: "arrow-tree-shadow-" });
    const evil = `/tmp/arrow-tree-evil-${crypto.randomUUID().slice(0, 8)}.txt`;
    try {
      const ctx = context(dir);
      const scope = `${ctx.runDir}/nodes/n1`;
      // The step's program: it writes its own scope (allowed) and /tmp (not), and succeeds at both.
      const { cmd, out } = await inExecutorLane(ctx, `echo ok > out.txt && echo x > ${evil} && echo done`);
      equal(out.exit, 0, out.stderrTail.join("\n"));
      equal(out.stdout.trim(), "done", "the write was not refused");
      deepEqual(out.escapes, [{ path: evil, op: "write", stopped_by: "bwrap-shadow" }]);
      equal(Deno.readTextFileSync(`${scope}/out.txt`), "ok\n");
      ok(!exists(evil), "the host's /tmp is untouched");
      // The tree's overwatch turns it into a SCOPE_VIOLATION naming the path, the operation and the layer.
      const node = { id: "n1", tokens: 0, attempt: 1 } as TreeNode;
      const r = { escapes: out.escapes } as ExecResult;
      const { incidents } = judge({ tick: 1, observeMs: 1000, metric: "r2", sign: 1 }, node, r);
      equal(incidents[0]!.type, "SCOPE_VIOLATION");
      deepEqual((incidents[0]!.evidence as { attempts: unknown[] }).attempts, [
        { path: evil, op: "write", stopped_by: "bwrap-shadow", reverted: false },
      ]);
      // A slot's later job answers only for what it added.
      const seen = new Set<string>();
      equal(shadowEscapes(cmd.shadows ?? [], seen).length, 1);
      deepEqual(shadowEscapes(cmd.shadows ?? [], seen), []);
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "a tree executor's write refused by a read-only $HOME is on the record when its stderr names it",
  ignore: needs("tree_shadow_test", "the read-only lane case", NO_BWRAP),
  fn: async () => {
    const dir = Deno.makeTempDirSync({ prefix: "arrow-tree-refused-" });
    // Outside the runs' directory, which is hidden whole.
    const home = Deno.makeTempDirSync({ prefix: "arrow-tree-home-" });
    const was = Deno.env.get("HOME");
    try {
      const ctx = context(dir);
      // A $HOME past MAX_SHADOWED_ENTRIES: bubblewrap binds it read-only instead of shadowing its top level.
      for (let i = 0; i <= MAX_SHADOWED_ENTRIES; i++) Deno.mkdirSync(`${home}/d${i}`, { recursive: true });
      Deno.env.set("HOME", home);
      // Refused twice under $HOME (once by a path relative to its scope), once under /usr: not a lane Arrow
      // bound read-only, so that line blames nothing; and the scope itself stays writable.
      // From the scope (`<run>/nodes/n1`) up to the root, then down.
      const rel = `${"../".repeat(ctx.runDir.split("/").length)}..${home}/d1/evil.txt`;
      const { cmd, out } = await inExecutorLane(
        ctx,
        `echo ok > out.txt; echo x > ${home}/d0/evil.txt; echo x > ${rel}; echo x > /usr/arrow-evil; echo done`,
      );
      equal(out.exit, 0, out.stderrTail.join("\n"));
      equal(out.stdout.trim(), "done");
      equal(Deno.readTextFileSync(`${ctx.runDir}/nodes/n1/out.txt`), "ok\n");
      const lane = {
        path: home,
        why: `${MAX_SHADOWED_ENTRIES + 1} entries, more than 400 (MAX_SHADOWED_ENTRIES)`,
      };
      deepEqual(cmd.refusing, [lane]);
      deepEqual(out.refusing, [lane], "the lane goes to the node's record");
      ok(out.stderrTail.some((l) => /read-only file system/i.test(l)), out.stderrTail.join("\n"));
      const said = { op: "write", stopped_by: "read-only mount", seen_in: "the program's stderr" };
      deepEqual(out.escapes, [
        { path: `${home}/d0/evil.txt`, ...said },
        { path: `${home}/d1/evil.txt`, ...said },
      ]);
      for (const d of ["d0", "d1"]) ok(!exists(`${home}/${d}/evil.txt`), `nothing landed in ${d}`);
      // The tree's overwatch blames the executor's node, naming the path, the operation and the layer.
      const node = { id: "n1", tokens: 0, attempt: 1 } as TreeNode;
      const { incidents } = judge({ tick: 1, observeMs: 1000, metric: "r2", sign: 1 }, node, {
        escapes: out.escapes,
      } as ExecResult);
      equal(incidents.length, 1);
      equal(incidents[0]!.type, "SCOPE_VIOLATION");
      equal(incidents[0]!.node, "n1");
      const e = incidents[0]!.evidence as { writer: string; paths: string[]; attempts: unknown[] };
      equal(e.writer, "n1");
      deepEqual(e.paths, [`${home}/d0/evil.txt`, `${home}/d1/evil.txt`]);
      deepEqual(e.attempts, [
        { path: `${home}/d0/evil.txt`, ...said, reverted: false },
        { path: `${home}/d1/evil.txt`, ...said, reverted: false },
      ]);
    } finally {
      if (was === undefined) Deno.env.delete("HOME");
      else Deno.env.set("HOME", was);
      Deno.removeSync(dir, { recursive: true });
      Deno.removeSync(home, { recursive: true });
    }
  },
});
