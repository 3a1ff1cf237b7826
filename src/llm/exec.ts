/**
 * Runs one agent command: `[...sandbox, "bash", "-c", cmd]` in the scope, in its own process group (so a
 * timeout or a stop kills everything it started), stdin closed, stdout and stderr kept bounded (head and
 * tail, with the count of bytes left out in between).
 *
 * @module
 */

export interface ExecResult {
  /** Null when the command was killed (timeout or stop). */
  exit: number | null;
  stdout: string;
  stderr: string;
  stdout_bytes: number;
  stderr_bytes: number;
  timed_out: boolean;
  stopped: boolean;
  ms: number;
}

export interface ExecOptions {
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  /** Bytes kept per stream (half from the start, half from the end). */
  maxBytes: number;
  signal?: AbortSignal;
}

/** Keeps the first and last `max/2` bytes of a stream and counts the rest. */
class Capture {
  head: Uint8Array[] = [];
  headLen = 0;
  tail: Uint8Array = new Uint8Array(0);
  total = 0;
  constructor(readonly half: number) {}

  push(chunk: Uint8Array): void {
    this.total += chunk.length;
    const room = this.half - this.headLen;
    if (room > 0) {
      const part = chunk.subarray(0, room);
      this.head.push(part.slice());
      this.headLen += part.length;
      chunk = chunk.subarray(part.length);
    }
    if (!chunk.length) return;
    const joined = new Uint8Array(Math.min(this.half, this.tail.length + chunk.length));
    const fromChunk = Math.min(chunk.length, joined.length);
    const fromTail = joined.length - fromChunk;
    joined.set(this.tail.subarray(this.tail.length - fromTail), 0);
    joined.set(chunk.subarray(chunk.length - fromChunk), fromTail);
    this.tail = joined;
  }

  text(): string {
    const dec = new TextDecoder();
    const head = this.head.map((p) => dec.decode(p, { stream: true })).join("") + dec.decode();
    const omitted = this.total - this.headLen - this.tail.length;
    const tail = new TextDecoder().decode(this.tail);
    return omitted > 0 ? `${head}\n…[${omitted} bytes omitted]…\n${tail}` : head + tail;
  }
}

/** Reads a stream into a capture; `cancel()` stops reading (a process outside the group kept it open). */
function drain(stream: ReadableStream<Uint8Array>, cap: Capture): { done: Promise<void>; cancel(): void } {
  const reader = stream.getReader();
  const done = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        cap.push(value);
      }
    } catch {
      // cancelled
    }
  })();
  return { done, cancel: () => void reader.cancel().catch(() => {}) };
}

function killGroup(pid: number, sig: Deno.Signal): void {
  try {
    Deno.kill(-pid, sig);
  } catch {
    // the group is already gone
  }
}

export async function runCommand(argv: string[], o: ExecOptions): Promise<ExecResult> {
  const started = performance.now();
  const child = new Deno.Command(argv[0]!, {
    args: argv.slice(1),
    cwd: o.cwd,
    env: o.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    detached: true,
  }).spawn();
  const out = new Capture(o.maxBytes >> 1);
  const err = new Capture(o.maxBytes >> 1);
  const readers = [drain(child.stdout, out), drain(child.stderr, err)];
  let timedOut = false;
  let stopped = false;
  let hard: ReturnType<typeof setTimeout> | undefined;
  const stop = (why: "timeout" | "stop") => {
    if (why === "timeout") timedOut = true;
    else stopped = true;
    killGroup(child.pid, "SIGTERM");
    hard ??= setTimeout(() => killGroup(child.pid, "SIGKILL"), 1000);
  };
  const timer = setTimeout(() => stop("timeout"), o.timeoutMs);
  const onAbort = () => stop("stop");
  o.signal?.addEventListener("abort", onAbort, { once: true });
  if (o.signal?.aborted) onAbort();
  let status: Deno.CommandStatus;
  try {
    status = await child.status;
  } finally {
    clearTimeout(timer);
    clearTimeout(hard);
    o.signal?.removeEventListener("abort", onAbort);
  }
  // Whatever the command left running in its group (a `sleep 1000 &`) goes with it: one command per step.
  killGroup(child.pid, "SIGKILL");
  const all = Promise.all(readers.map((r) => r.done));
  let grace: ReturnType<typeof setTimeout> | undefined;
  const late = await Promise.race([
    all.then(() => false),
    new Promise<boolean>((r) => (grace = setTimeout(() => r(true), 500))),
  ]);
  clearTimeout(grace);
  if (late) {
    for (const r of readers) r.cancel();
    await all;
  }
  return {
    exit: timedOut || stopped ? null : status.code,
    stdout: out.text(),
    stderr: err.text(),
    stdout_bytes: out.total,
    stderr_bytes: err.total,
    timed_out: timedOut,
    stopped,
    ms: Math.round(performance.now() - started),
  };
}
