/**
 * The lock-step worker protocol, worker side. The engine writes one JSON line per tick to stdin
 * (`{"tick":N,"events":[…],"finish":bool}`); the worker does that tick's work and answers one line
 * (`{"ack":N,"tokens":T,"done":bool}`). On done the worker exits 0. EOF on stdin means the engine is gone:
 * exit at once. The very first line is the worker's config (`{"config":{…}}`), which lets the engine start
 * a worker process before the node is admitted. Dependency-free so it runs with --no-remote --no-npm.
 *
 * @module
 */

export interface TickMsg {
  tick: number;
  events: StreamEvent[];
  finish: boolean;
}

export interface TickResult {
  tokens: number;
  done: boolean;
}

import { takeFired } from "./fired.ts";
import { stdinLines, type StreamEvent } from "./stdin.ts";

export { stdinLines, type StreamEvent };

const enc = new TextEncoder();

export function send(obj: unknown): void {
  const bytes = enc.encode(JSON.stringify(obj) + "\n");
  let off = 0;
  while (off < bytes.length) off += Deno.stdout.writeSync(bytes.subarray(off));
}

/** Serves ticks until the handler reports done or stdin closes (the engine is gone: exit at once). */
export async function serve(handle: (msg: TickMsg) => TickResult | Promise<TickResult>): Promise<never> {
  for (;;) {
    const line = await stdinLines.next();
    if (line === null) Deno.exit(3);
    const msg = JSON.parse(line) as TickMsg;
    const res = await handle(msg);
    send({ ack: msg.tick, tokens: res.tokens, done: res.done, fired: takeFired() });
    if (res.done) Deno.exit(0);
  }
}
