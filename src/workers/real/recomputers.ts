/**
 * Registers the real artifact kinds with the @claim checker. Each recomputer loads lazily, so mock runs do not
 * pay for the model code.
 *
 * @module
 */
import { registerRecomputer } from "../lib/recompute.ts";

for (const kind of ["ols", "gbdt", "ckpt_eval"]) {
  registerRecomputer(kind, () => import("./recompute.ts").then((m) => m.recomputer(kind)));
}
