/**
 * The SDK's data shapes — JSON values, a manifest, what Arrow tells a worker through its environment —
 * apart from the SDK's functions, so its fault hooks (faults.ts) can name them without importing the SDK.
 *
 * @module
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Manifest = Record<string, Json>;

/** What Arrow tells a worker through its environment (WORKERS.md, "Environment"). */
export interface ArrowEnv {
  runDir: string | null;
  scope: string;
  node: string | null;
  attempt: number;
  lap: number;
  resumeFrom: string | null;
  metric: string | null;
  direction: "maximize" | "minimize";
  protocolVersion: string | null;
  /** Artifact ancestors: node id → absolute scope (read-only). */
  inputs: Record<string, string>;
  sources: Record<string, string>;
  frozen: { data_hash?: string; split_hash?: string; protocol_version?: string; seed?: number } | null;
  faults: Record<string, Json>[];
  faultLog: string | null;
}
