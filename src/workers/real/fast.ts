/**
 * Shell of a real fast worker: lock-step like the mock ones (so it can be started ahead, before its node is
 * admitted), doing all of its work on the first tick. A failure is printed and ends the process with exit 1
 * and no results.json, which the acceptance gate then refuses.
 *
 * @module
 */
import { faultsOf, readConfig, type WorkerConfig } from "../lib/config.ts";
import { fired } from "../lib/fired.ts";
import { serve } from "../lib/protocol.ts";

/**
 * The faults a real lock-step worker acts out, counted in its own ticks: an out-of-scope write attempt, a
 * stall (ticks silent, or for good), a crash. Returns "stall" while it must stay silent.
 */
export function disturb(cfg: WorkerConfig, local: number): "stall" | "go" {
  const escape = faultsOf(cfg, "out_of_scope_write")[0];
  if (escape && local === ((escape.at_tick as number | undefined) ?? 1)) {
    fired(cfg, escape);
    const path = String(escape.path);
    try {
      Deno.writeTextFileSync(
        path.startsWith("/") ? path : `${cfg.nodes}/${path}`,
        `written by ${cfg.node}\n`,
      );
    } catch {
      // refused by the sandbox; a careless worker swallows it
    }
  }
  const crash = faultsOf(cfg, "crash")[0];
  if (crash && local >= (crash.at_step as number)) {
    fired(cfg, crash);
    console.error(`${cfg.node}: crashing as the crash fault says`);
    Deno.exit((crash.exit as number | undefined) ?? 1);
  }
  const st = faultsOf(cfg, "stall")[0];
  if (!st || local < (st.at_step as number)) return "go";
  const ticks = st.ticks as number | undefined;
  if (ticks !== undefined && local >= (st.at_step as number) + ticks) return "go";
  fired(cfg, st);
  return "stall";
}

export async function runFast(name: string, work: (cfg: WorkerConfig) => Promise<void>): Promise<number> {
  const cfg = await readConfig();
  Deno.mkdirSync(cfg.scope, { recursive: true });
  // Resumed after a crash past its first tick: the work is done and the engine restored the scope as it was.
  const done = cfg.catchup > 0;
  let local = 0;
  return await serve(async () => {
    local++;
    if (!done && disturb(cfg, local) === "stall") return { tokens: 0, done: false };
    try {
      if (!done) await work(cfg);
    } catch (e) {
      console.error(`${name}: ${(e as Error).message}`);
      Deno.exit(1);
    }
    return { tokens: 0, done: true };
  });
}
