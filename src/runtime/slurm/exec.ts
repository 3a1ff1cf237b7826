/**
 * Runs one Slurm command-line tool with a hard time limit and bounded output. The tool starts in its own
 * process group so that a timeout kills it together with anything it started (a wrapper script's `sleep`
 * would otherwise hold the pipe open and the read would hang past the limit).
 *
 * @module
 */

export interface ExecOptions {
  env: Record<string, string>;
  timeoutMs: number;
  /** Bytes kept of stdout (the rest is read and dropped so the tool never blocks on a full pipe). */
  maxBytes: number;
  stdin?: string;
}

export interface ExecResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  truncated: boolean;
  ms: number;
}

const STDERR_MAX = 16 * 1024;

async function drain(
  stream: ReadableStream<Uint8Array>,
  max: number,
): Promise<{ text: string; cut: boolean }> {
  const chunks: Uint8Array[] = [];
  let kept = 0;
  let cut = false;
  for await (const chunk of stream) {
    if (kept >= max) {
      cut = true;
      continue;
    }
    const take = chunk.subarray(0, max - kept);
    if (take.length < chunk.length) cut = true;
    chunks.push(take);
    kept += take.length;
  }
  const all = new Uint8Array(kept);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return { text: new TextDecoder().decode(all), cut };
}

/** Runs `cmd args`; never throws for a failing or slow tool — the result says what happened. */
export async function execBounded(cmd: string, args: string[], o: ExecOptions): Promise<ExecResult> {
  const t0 = performance.now();
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(cmd, {
      args,
      env: o.env,
      clearEnv: true,
      stdin: o.stdin === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
      detached: true,
    }).spawn();
  } catch (e) {
    return { code: null, stdout: "", stderr: (e as Error).message, timedOut: false, truncated: false, ms: 0 };
  }
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      Deno.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }, o.timeoutMs);
  if (o.stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(o.stdin)).catch(() => {});
    await w.close().catch(() => {});
  }
  const [out, err, status] = await Promise.all([
    drain(child.stdout, o.maxBytes),
    drain(child.stderr, STDERR_MAX),
    child.status,
  ]);
  clearTimeout(timer);
  return {
    code: timedOut ? null : status.code,
    stdout: out.text,
    stderr: err.text.trim(),
    timedOut,
    truncated: out.cut,
    ms: performance.now() - t0,
  };
}
