/**
 * The mock worker: a real subprocess, sandboxed like any other, that plays one node of a plan in lock-step
 * with the engine's logical clock. Its behaviour comes from the node's role, its `mock:` spec and the
 * scenario's worker-side faults, all handed over in its config.
 *
 * @module
 */
import { readConfig } from "./lib/config.ts";
import { ScopeWriter } from "./lib/files.ts";
import { serve, type TickMsg, type TickResult } from "./lib/protocol.ts";
import { fast, reactive } from "./mock/roles.ts";
import { trainer } from "./mock/trainer.ts";

export async function main(): Promise<void> {
  const cfg = await readConfig();
  const out = new ScopeWriter(cfg.scope);
  Deno.mkdirSync(cfg.scope, { recursive: true });
  let handle: (msg: TickMsg) => Promise<TickResult>;
  if (cfg.kind === "reactive") handle = reactive(cfg, out);
  else {
    const step = cfg.kind === "long" ? trainer(cfg, out) : fast(cfg, out);
    handle = () => step();
  }
  if (cfg.catchup > 0 && cfg.kind !== "reactive") {
    out.dry = true;
    for (let i = 0; i < cfg.catchup; i++) await handle({ tick: -1, events: [], finish: false });
    out.dry = false;
  }
  await serve(handle);
}

if (import.meta.main) await main();
