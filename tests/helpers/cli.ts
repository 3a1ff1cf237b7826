/**
 * Runs the `arrow` CLI from source as a subprocess, the way a user (or `deno task arrow`) does.
 *
 * @module
 */

export const ROOT = new URL("../../", import.meta.url).pathname;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function arrow(
  args: string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<CliResult> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-prompt", `${ROOT}src/cli/main.ts`, ...args],
    cwd: opts.cwd ?? ROOT,
    env: { NO_COLOR: "1", RUST_BACKTRACE: "0", ...opts.env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** Runs `fn` over `items` with at most `limit` at a time (the machine has two cores). */
export async function pool<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** Starts `arrow <args>` in the background (crash tests kill or interrupt it); stdout is discarded. */
export function spawnArrow(
  args: string[],
  stderr: "null" | "piped" = "null",
  env: Record<string, string> = {},
): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-prompt", `${ROOT}src/cli/main.ts`, ...args],
    env: { NO_COLOR: "1", RUST_BACKTRACE: "0", ...env },
    stdout: "null",
    stderr,
  }).spawn();
}

/**
 * `arrow tree --data <file> --target <target> --cycles 1 --executors 1 --runs-dir <runsDir> [extra…]`: the
 * smallest whole tree run, as the newcomer tests start one (extra flags such as --delimiter come after).
 */
export function treeOnce(
  file: string,
  target: string,
  runsDir: string,
  extra: string[] = [],
): Promise<CliResult> {
  return arrow([
    "tree",
    "--data",
    file,
    "--target",
    target,
    "--cycles",
    "1",
    "--executors",
    "1",
    "--runs-dir",
    runsDir,
    ...extra,
  ]);
}
