/**
 * Shell of a real fast worker: lock-step like the mock ones (so it can be started ahead, before its node is
 * admitted), doing all of its work on the first tick. A failure is printed and ends the process with exit 1
 * and no results.json, which the acceptance gate then refuses.
 *
 * @module
 */
import { readConfig, type WorkerConfig } from "../lib/config.ts";
import { serve } from "../lib/protocol.ts";

export async function runFast(name: string, work: (cfg: WorkerConfig) => Promise<void>): Promise<number> {
  const cfg = await readConfig();
  Deno.mkdirSync(cfg.scope, { recursive: true });
  // Resumed after a crash past its first tick: the work is done and the engine restored the scope as it was.
  const done = cfg.catchup > 0;
  return await serve(async () => {
    try {
      if (!done) await work(cfg);
    } catch (e) {
      console.error(`${name}: ${(e as Error).message}`);
      Deno.exit(1);
    }
    return { tokens: 0, done: true };
  });
}
