/**
 * User data sets for `arrow run --real --data file.csv --target col` (issue 4 builds it).
 *
 * @module
 */
import type { Plan } from "../graph/types.ts";
import { InputError } from "./errors.ts";

export function withUserData(_plan: Plan, _file: string, _target: string, _runDir: string): Promise<Plan> {
  return Promise.reject(new InputError("arrow run: --data is not available in this build yet"));
}
