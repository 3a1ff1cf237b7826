/**
 * The worker a self-executing harness runs its job in (lane.ts): the harness's `main` on the arguments it is
 * posted, under the permissions the lane grants; it posts back the exit code.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { main } from "./harness.ts";

self.onmessage = async (e: MessageEvent<string[]>) => {
  let code = 2;
  try {
    code = await main(e.data);
  } catch (err) {
    console.error(err instanceof Error ? err.stack ?? err.message : String(err));
  }
  self.postMessage(code);
};
