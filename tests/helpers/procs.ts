/**
 * Process helpers for crash tests: find every live process that belongs to a run directory (by its command
 * line or environment), and wait for a condition on disk.
 *
 * @module
 */

/**
 * A process's command line as NUL-joined text, with a bubblewrap process's own options left out: bwrap
 * lists every top-level entry of /tmp and $HOME as a mount to bind back (runtime/sandbox/bwrap.ts), so every
 * sandboxed worker on the machine would otherwise "mention" every temporary directory of every test. What
 * it runs (after `--`) is kept.
 */
export function commandLine(pid: number): string {
  const cmd = Deno.readTextFileSync(`/proc/${pid}/cmdline`);
  const argv = cmd.split("\0");
  if (!/(^|\/)bwrap$/.test(argv[0] ?? "")) return cmd;
  const dash = argv.indexOf("--");
  return dash < 0 ? argv[0]! : [argv[0], ...argv.slice(dash + 1)].join("\0");
}

/** Pids of live processes whose command line or environment mentions `needle` (this process excluded). */
export function processesMentioning(needle: string): number[] {
  const out: number[] = [];
  for (const d of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(d.name) || Number(d.name) === Deno.pid) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${d.name}/stat`);
      if (/\) Z /.test(stat)) continue;
      const cmd = commandLine(Number(d.name));
      let env = "";
      try {
        env = Deno.readTextFileSync(`/proc/${d.name}/environ`);
      } catch {
        env = "";
      }
      if (cmd.includes(needle) || env.includes(needle)) out.push(Number(d.name));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

/** Resolves once `check()` is true, checking every `everyMs`; rejects after `timeoutMs`. */
export async function until(
  check: () => boolean,
  timeoutMs: number,
  what: string,
  everyMs = 5,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export function lineCount(path: string): number {
  try {
    const t = Deno.readTextFileSync(path);
    return t.split("\n").length - 1;
  } catch {
    return 0;
  }
}
