/**
 * The harness' own input and output: the nonce read from stdin, whole writes, and how a job ends early
 * (its result file and its signed line say why, and the exit code tells the kind).
 *
 * @module
 */

export const enc = new TextEncoder();
export const stdout = Deno.stdout.writeSync.bind(Deno.stdout);
export const stderr = Deno.stderr.writeSync.bind(Deno.stderr);

export function readNonce(): string {
  const buf = new Uint8Array(128);
  let text = "";
  while (!text.includes("\n")) {
    const n = Deno.stdin.readSync(buf);
    if (!n) break;
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
  return text.trim();
}

export function writeAll(f: Deno.FsFile, text: string): void {
  const bytes = enc.encode(text);
  for (let off = 0; off < bytes.length;) off += f.writeSync(bytes.subarray(off));
}

/** How a job ended early: its exit code (2 bad input, 3 the artifact's code failed). */
export class JobEnd extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

export function fail(
  code: number,
  message: string,
  results: Deno.FsFile | null,
  nonce: string | null,
  node = "",
): never {
  const reason = message.slice(0, 2000);
  if (results) writeAll(results, JSON.stringify({ node, error: reason }) + "\n");
  if (nonce) stdout(enc.encode(`${nonce} ${JSON.stringify({ error: reason })}\n`));
  stderr(enc.encode(`${reason}\n`));
  throw new JobEnd(code, reason);
}

export function finite(values: ArrayLike<number>): number[] {
  return Array.from(values, (v) => (Number.isFinite(v) ? v : 0));
}
