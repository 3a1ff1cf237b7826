/**
 * The harness run from the arrow binary itself (`arrow __worker tree_harness <mode> …`, the self-executing
 * mode of a compiled arrow, forced from source by ARROW_WORKER_MODE=self). Such a process carries the
 * binary's own permissions, so the lane a `deno run` harness gets from its flags is given here to a worker
 * instead: the job runs in `lane_worker.ts` with exactly the reads, writes and environment the lane grants
 * (`ARROW_HARNESS_LANE`, JSON, set by tree/execute/sandbox.ts) — Deno refuses the rest and its audit log
 * names it, as for a `deno run` harness. The per-fit workers of untrusted step code are made inside it, each
 * narrower still.
 *
 * @module
 */

/** What the harness may touch: the lists its `deno run` flags would grant. */
export interface HarnessLane {
  read: string[];
  write: string[];
  env: string[];
}

export const LANE_ENV = "ARROW_HARNESS_LANE";

const isList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");

/** The lane from the environment; a missing or malformed one is refused (never a harness without a lane). */
export function laneFromEnv(text = Deno.env.get(LANE_ENV)): HarnessLane {
  let v: unknown = null;
  try {
    v = JSON.parse(text ?? "null");
  } catch { /* refused below */ }
  const o = v as Partial<HarnessLane> | null;
  if (!o || !isList(o.read) || !isList(o.write) || !isList(o.env)) {
    throw new TypeError(`${LANE_ENV} must be JSON {"read": [...], "write": [...], "env": [...]}`);
  }
  return { read: o.read, write: o.write, env: o.env };
}

/** Runs the harness on `args` in a worker confined to `lane`; resolves with its exit code. */
export function inLane(args: string[], lane: HarnessLane): Promise<number> {
  const w = new Worker(new URL("./lane_worker.ts", import.meta.url), {
    type: "module",
    deno: {
      permissions: {
        read: lane.read,
        write: lane.write.length ? lane.write : false,
        env: lane.env.length ? lane.env : false,
        net: false,
        run: false,
        ffi: false,
        sys: false,
        import: false,
      },
    },
  });
  return new Promise((resolve) => {
    w.postMessage(args);
    w.onmessage = (e: MessageEvent<number>) => {
      w.terminate();
      resolve(typeof e.data === "number" ? e.data : 2);
    };
    w.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      w.terminate();
      console.error(`harness: ${e.message}`);
      resolve(2);
    };
  });
}

/** `arrow __worker tree_harness …`. */
export function main(args: string[]): Promise<number> {
  return inLane(args, laneFromEnv());
}
