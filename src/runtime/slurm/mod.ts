/**
 * The Slurm runtime backend: a client over sbatch/squeue/scontrol/scancel with a background state poller,
 * the batch-script writer, and validation of per-node Slurm options.
 *
 * @module
 */
export { SlurmClient, type SlurmClientOptions } from "./client.ts";
export type { PollHealth } from "./poller.ts";
export {
  checkSlurmOptions,
  OPTION_KEYS,
  type OptionProblem,
  parseGres,
  parseMem,
  parseTimeLimit,
} from "./options.ts";
export { batchScript, jobName, sbatchArgs } from "./script.ts";
export {
  isFinal,
  type JobId,
  type JobState,
  type JobView,
  SlurmError,
  type SlurmOptions,
  type SubmitSpec,
} from "./types.ts";
