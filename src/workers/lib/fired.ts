/**
 * Faults that fired in a worker, reported once per attempt: lock-step workers in their next answer
 * (`takeFired`), every worker also in its fault log, so a fault that never fires is visible at the end.
 *
 * @module
 */
import type { Fault, WorkerConfig } from "./config.ts";

const reported = new Set<number>();

/**
 * Records that a fault fired (once per attempt): lock-step workers report it in their next answer
 * (`takeFired`), free-running ones in their fault log, so a fault that never fires is visible at the end.
 */
export function fired(cfg: Pick<WorkerConfig, "faultLog">, f: Fault, dry = false): void {
  if (dry || reported.has(f.index)) return;
  reported.add(f.index);
  pendingFired.push(f.index);
  try {
    Deno.writeTextFileSync(cfg.faultLog, JSON.stringify({ kind: f.kind, index: f.index }) + "\n", {
      append: true,
    });
  } catch {
    // lock-step workers report through their answer; the log is a second channel
  }
}

const pendingFired: number[] = [];

/** Fault indices fired since the last call (sent with the lock-step answer). */
export function takeFired(): number[] {
  return pendingFired.splice(0, pendingFired.length);
}
