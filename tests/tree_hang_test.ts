/**
 * Hang detection for children that log no metrics (Arrow's recomputation, the merge gate, the final test):
 * they log progress lines, and silence there for K_FREEZE observations is a hang — counted, for a standby,
 * from the moment it is told to go, never while it waits.
 *
 * @module
 */
import { equal, ok } from "node:assert/strict";
import { ProcJournal } from "../src/runtime/proc_journal.ts";
import { runChild } from "../src/tree/child.ts";
import type { ChildCommand } from "../src/tree/sandbox.ts";
import { K_FREEZE } from "../src/thresholds.ts";

/** Reads its line, logs one progress line, then never logs again (it sleeps, as a hung fit would spin). */
const SILENT_AFTER_ONE = `
const buf = new Uint8Array(64);
await Deno.stdin.read(buf);
Deno.writeTextFileSync(Deno.env.get("ARROW_PROGRESS"), JSON.stringify({ step: 0, phase: "loaded" }) + "\\n");
await new Promise(() => setInterval(() => {}, 1000));
`;

Deno.test("runChild() calls a silent standby hung only after it was told to go, and stops it", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "arrow-tree-hang-" });
  try {
    Deno.mkdirSync(`${dir}/.arrow`);
    const progress = `${dir}/progress.jsonl`;
    const cmd: ChildCommand = {
      cmd: Deno.execPath(),
      args: ["eval", "--quiet", SILENT_AFTER_ONE],
      env: { ARROW_PROGRESS: progress },
      cwd: dir,
      audit: `${dir}/audit.jsonl`,
      progress,
      read: [],
      write: [progress],
      sandbox: "deno",
    };
    const observeMs = 150;
    let go: (line: string | null) => void = () => {};
    const started = performance.now();
    const running = runChild(cmd, {
      label: "standby",
      observeMs,
      wallMs: 60_000,
      journal: new ProcJournal(dir),
      stdin: new Promise<string | null>((r) => (go = r)),
      progress: true,
      logDir: `${dir}/logs`,
    });
    // Waiting longer than the hang window is not a hang for a standby.
    await new Promise((r) => setTimeout(r, 3 * K_FREEZE * observeMs));
    const toldAt = performance.now();
    go("nonce");
    const out = await running;
    ok(out.hung, "the silent child is called hung");
    equal(out.hung.step, 1, "after the one progress line it logged");
    ok(out.overBudget === null);
    ok(out.exit === null || out.exit !== 0, "it was stopped");
    ok(performance.now() - toldAt >= K_FREEZE * observeMs, "not before the window after its line");
    ok(toldAt - started >= 3 * K_FREEZE * observeMs);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
