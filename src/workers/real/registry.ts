/**
 * The built-in workers of the real path, by the name a plan gives (`worker: {type: builtin, name}`). Fast and
 * reactive ones speak the lock-step protocol; the trainer runs free and is watched through its files.
 *
 * @module
 */
import type { BuiltinWorker } from "../lib/config.ts";

const FAST = ["manifest_override", "out_of_scope_write", "stall", "crash"] as const;

export const BUILTINS: Record<string, BuiltinWorker> = {
  // Reads a user's CSV from <run>/data when the plan points it there (arrow run --data).
  make_data: { script: "real/make_data", lockstep: true, read: (runDir) => [`${runDir}/data`], faults: FAST },
  ols_baseline: {
    script: "real/ols_baseline",
    lockstep: true,
    artifact: "ols",
    faults: [...FAST, "false_claim"],
  },
  gbdt_train: {
    script: "real/gbdt_train",
    lockstep: false,
    artifact: "gbdt",
    faults: [...FAST, "false_claim", "trainer_profile", "superseding_answer"],
  },
  ckpt_eval: {
    script: "real/ckpt_eval",
    lockstep: true,
    artifact: "ckpt_eval",
    faults: [...FAST, "false_claim"],
  },
};
