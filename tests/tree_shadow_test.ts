/**
 * Tree executors under bubblewrap: a write outside the lane that Deno's permission layer never saw — a
 * program the step started, standing in here for any way past Deno — lands in the child's own /tmp shadow
 * (from the one layout builder) and is named with its path, operation and `stopped_by`, so the tree's
 * overwatch blames it (SCOPE_VIOLATION) instead of bubblewrap refusing it in silence.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { ProcJournal } from "../src/runtime/proc/proc_journal.ts";
import { runChild, shadowEscapes } from "../src/tree/execute/child.ts";
import { childCommand, type SandboxContext } from "../src/tree/execute/sandbox.ts";
import { judge } from "../src/tree/overwatch.ts";
import type { ExecResult, TreeNode } from "../src/tree/types.ts";
import { BWRAP, needs, NO_BWRAP } from "./helpers/needs.ts";

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

Deno.test({
  name: "a tree executor's write past Deno's layer is caught in its bubblewrap shadow and blamed",
  ignore: needs("tree_shadow_test", "the bubblewrap case", NO_BWRAP),
  fn: async () => {
    const dir = Deno.makeTempDirSync({ prefix: "arrow-tree-shadow-" });
    const evil = `/tmp/arrow-tree-evil-${crypto.randomUUID().slice(0, 8)}.txt`;
    try {
      const ctx = context(dir);
      const scope = `${ctx.runDir}/nodes/n1`;
      Deno.mkdirSync(`${ctx.runDir}/.arrow/audit/n1`, { recursive: true });
      const cmd = childCommand(ctx, "execute", "n1", scope, `${ctx.runDir}/.arrow/audit/n1/execute.jsonl`);
      equal(cmd.sandbox, "bwrap+deno");
      // The step's program: it writes its own scope (allowed) and /tmp (not), and succeeds at both.
      const at = cmd.args.indexOf("--");
      cmd.args = [
        ...cmd.args.slice(0, at + 1),
        "sh",
        "-c",
        `echo ok > out.txt && echo x > ${evil} && echo done`,
      ];
      const out = await runChild(cmd, {
        label: "n1",
        observeMs: 1000,
        wallMs: 30_000,
        journal: new ProcJournal(ctx.runDir),
        logDir: `${ctx.runDir}/logs`,
      });
      equal(out.exit, 0, out.stderrTail.join("\n"));
      equal(out.stdout.trim(), "done", "the write was not refused");
      deepEqual(out.escapes, [{ path: evil, op: "write", stopped_by: "bwrap-shadow" }]);
      equal(Deno.readTextFileSync(`${scope}/out.txt`), "ok\n");
      ok(
        !(() => {
          try {
            return Deno.statSync(evil);
          } catch {
            return null;
          }
        })(),
        "the host's /tmp is untouched",
      );
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
