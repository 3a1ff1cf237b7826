/**
 * The Slurm runtime backend: a client over sbatch/squeue/scontrol/scancel with a background state poller,
 * the batch-script writer, the run's job journal and re-attachment after a crash, and validation of
 * per-node Slurm options.
 *
 * @module
 */
export { type JobContext, runPrefix, slurmSpec } from "./backend.ts";
export { SlurmClient, type SlurmClientOptions } from "./client.ts";
export { JobJournal, type JobRecord, reattach, type Reattachment } from "./journal.ts";
export {
  checkSlurmOptions,
  OPTION_KEYS,
  type OptionProblem,
  parseGres,
  parseMem,
  parseTimeLimit,
} from "./options.ts";
export type { PollHealth } from "./poller.ts";
export { batchScript, jobName, parseJobName, sbatchArgs } from "./script.ts";
export {
  isFinal,
  isStuckPending,
  type JobId,
  type JobState,
  type JobView,
  SlurmError,
  type SlurmOptions,
  type SubmitSpec,
} from "./types.ts";
