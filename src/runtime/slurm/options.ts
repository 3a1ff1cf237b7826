/**
 * Validation of the per-node Slurm options a plan may set: the parsers live with the plan checks
 * (graph/validate_slurm.ts, so the plan loader can place problems at file:line:col without importing the
 * runtime); the backend normalises a node's options with the same code before it submits.
 *
 * @module
 */
export {
  checkSlurmOptions,
  OPTION_KEYS,
  type OptionProblem,
  parseGres,
  parseMem,
  parseTimeLimit,
} from "../../graph/validate_slurm.ts";
