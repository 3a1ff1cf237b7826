/**
 * `bench:tree`'s child-cost probe: what one sandboxed harness child costs beyond fitting, measured on the
 * root's recomputation started again and again (Deno permissions alone, or bubblewrap too).
 *
 * @module
 */
import { ProcJournal } from "../../src/runtime/proc/proc_journal.ts";
import { runChild, signedLine } from "../../src/tree/execute/child.ts";
import { sandboxOf } from "../../src/tree/data.ts";
import { childCommand } from "../../src/tree/execute/sandbox.ts";

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** What one sandboxed child costs beyond fitting: the root's recomputation, started `n` times. */
export async function childProbe(
  runDir: string,
  bwrap: string | null,
  n: number,
): Promise<{ wallMs: number; fitMs: number }> {
  const ctx = sandboxOf(runDir, null, "/nonexistent.csv", bwrap);
  const scope = `${runDir}/nodes/n0`;
  const walls: number[] = [], fits: number[] = [];
  for (let i = 0; i < n; i++) {
    const nonce = crypto.randomUUID();
    const audit = `${runDir}/.arrow/probe/${i}/a.jsonl`;
    Deno.mkdirSync(`${runDir}/.arrow/probe/${i}`, { recursive: true });
    const out = await runChild(childCommand(ctx, "recompute", "n0", scope, audit), {
      label: `probe${i}`,
      observeMs: 10_000,
      wallMs: 120_000,
      journal: new ProcJournal(runDir),
      stdin: nonce,
      logDir: `${runDir}/logs`,
    });
    const line = signedLine(out.stdout, nonce);
    const fit = line.ok ? Number(/"fit_ms":\s*([0-9.eE+-]+)/.exec(line.text.slice(-200))?.[1] ?? NaN) : NaN;
    walls.push(out.wallMs);
    fits.push(fit);
  }
  return { wallMs: mean(walls), fitMs: mean(fits) };
}
