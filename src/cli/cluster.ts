/**
 * `--runtime slurm` for both modes: connects to the cluster, asks it whether each node's job options could
 * run there (nothing is submitted), and turns what the cluster says into an input error naming the command
 * and where the cluster comes from — the same message from `arrow run` and `arrow tree`.
 *
 * @module
 */
import type { PlanNode } from "../graph/types.ts";
import type { SlurmClient } from "../runtime/slurm/mod.ts";
import { InputError } from "./errors.ts";

export async function connectCluster(
  command: string,
  nodes: readonly Pick<PlanNode, "id" | "kind" | "slurm">[],
  pollMs: number,
): Promise<SlurmClient> {
  const { connectChecked } = await import("../runtime/backend/mod.ts");
  const { SlurmError } = await import("../runtime/slurm/mod.ts");
  try {
    return await connectChecked(nodes, { pollMs });
  } catch (e) {
    if (!(e instanceof SlurmError)) throw e;
    throw new InputError(`${command} --runtime slurm: ${e.message}`, [
      "the cluster is the one $SLURM_CONF names (or the Slurm tools' default); see WORKERS.md, Running on a cluster",
    ]);
  }
}
