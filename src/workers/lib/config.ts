/**
 * What the engine tells a worker at start: the first stdin line (or the ARROW_CONFIG environment variable).
 * The engine builds it (`src/runtime/backend/launch.ts`); workers only read it.
 *
 * @module
 */
import type { ComparabilityTuple, InputRef, LaneConfig } from "../../graph/lane.ts";
import { stdinLines, type StreamEvent } from "./stdin.ts";

export type { InputRef } from "../../graph/lane.ts";

export interface Fault {
  kind: string;
  node: string;
  /** Index of the fault in the run's fault list, echoed back when it fires. */
  index: number;
  [key: string]: unknown;
}

export interface WorkerConfig extends LaneConfig {
  /** Every artifact ancestor (what the worker may read). */
  ancestors: Record<string, InputRef>;
  protocol: LaneConfig["protocol"] & { target?: number; seed?: number; evaluate?: string[] };
  mock: {
    ticks?: number;
    tokens?: number;
    score?: number;
    profile?: Record<string, unknown>;
  };
  args: Record<string, string | number | boolean>;
  faults: Fault[];
  /** Ticks already served in this attempt before a crash: fast-forward through them without writing. */
  catchup: number;
  /** Stream events delivered in this attempt before a crash (reactive fast-forward). */
  delivered: StreamEvent[];
  /** The frozen comparability tuple when the attempt started, if any. */
  frozen: ComparabilityTuple | null;
  /** File to append one JSON line to when a fault fires (`{"kind", "index"}`). */
  faultLog: string;
}

/** The config: from ARROW_CONFIG when set, else the first stdin line (`{"config":{…}}`). */
export async function readConfig(): Promise<WorkerConfig> {
  const raw = Deno.env.get("ARROW_CONFIG");
  if (raw) return JSON.parse(raw) as WorkerConfig;
  const line = await stdinLines.next();
  if (line === null) Deno.exit(3);
  const msg = JSON.parse(line) as { config?: WorkerConfig };
  if (!msg.config) {
    console.error("arrow worker: expected a config line first; workers are started by `arrow run`");
    Deno.exit(2);
  }
  return msg.config;
}

/** Faults of a kind that apply to this attempt (`attempts` lists them; default: the first only). */
export function faultsOf(cfg: WorkerConfig, kind: string, everyAttempt = false): Fault[] {
  return cfg.faults.filter((f) => {
    if (f.kind !== kind) return false;
    const list = f.attempts as number[] | undefined;
    return list ? list.includes(cfg.attempt) : everyAttempt || cfg.attempt === 1;
  });
}

/** A worker program that ships with Arrow, as the engine starts it. */
export interface BuiltinWorker {
  script: string;
  lockstep: boolean;
  /** Extra directories the worker may read, given the run directory. */
  read?: (runDir: string) => string[];
  /** Kind of artifact its manifest names, which @claim recomputes with a built-in recomputer. */
  artifact?: string;
  /** Worker-side fault kinds it honours (anything else aimed at it is refused before the run). */
  faults?: readonly string[];
}
