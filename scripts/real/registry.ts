/**
 * The built-in workers of the real path, by the name a plan gives (`worker: {type: builtin, name}`). Fast and
 * reactive ones speak the lock-step protocol; the trainer runs free and is watched through its files.
 *
 * @module
 */
import type { BuiltinWorker } from "../../src/runtime/launch.ts";

export const BUILTINS: Record<string, BuiltinWorker> = {
  // Reads a user's CSV from <run>/data when the plan points it there (arrow run --data).
  make_data: { script: "real/make_data", lockstep: true, read: (runDir) => [`${runDir}/data`] },
  ols_baseline: { script: "real/ols_baseline", lockstep: true },
  gbdt_train: { script: "real/gbdt_train", lockstep: false },
  ckpt_eval: { script: "real/ckpt_eval", lockstep: true },
};
