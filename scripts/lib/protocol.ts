/**
 * The lock-step worker protocol, worker side. The engine writes one JSON line per tick to stdin
 * (`{"tick":N,"events":[…],"finish":bool}`); the worker does that tick's work and answers one line
 * (`{"ack":N,"tokens":T,"done":bool}`). On done the worker exits 0. EOF on stdin means the engine is gone:
 * exit at once. Dependency-free so it runs with --no-remote --no-npm.
 *
 * @module
 */

export interface StreamEvent {
  from: string;
  step: number;
  file: string;
}

export interface TickMsg {
  tick: number;
  events: StreamEvent[];
  finish: boolean;
}

export interface TickResult {
  tokens: number;
  done: boolean;
}

const enc = new TextEncoder();

export function send(obj: unknown): void {
  const bytes = enc.encode(JSON.stringify(obj) + "\n");
  let off = 0;
  while (off < bytes.length) off += Deno.stdout.writeSync(bytes.subarray(off));
}

/** Serves ticks until the handler reports done or stdin closes. */
export async function serve(handle: (msg: TickMsg) => TickResult | Promise<TickResult>): Promise<never> {
  const decoder = new TextDecoder();
  let buf = "";
  for await (const chunk of Deno.stdin.readable) {
    buf += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (!line.trim()) continue;
      const msg = JSON.parse(line) as TickMsg;
      const res = await handle(msg);
      send({ ack: msg.tick, tokens: res.tokens, done: res.done });
      if (res.done) Deno.exit(0);
    }
  }
  Deno.exit(3);
}
